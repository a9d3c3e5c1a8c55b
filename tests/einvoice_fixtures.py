"""Small e-invoices generated for the tests: CII (Factur-X profiles, ZUGFeRD 1.0), UBL, Factur-X PDFs.

Nothing here is copied from the sample corpora: the XML is written from the element names of the
standards (CEN/TS 16931-3-2/-3-3, ZUGFeRD 1.0), with made-up parties and amounts.
"""
from __future__ import annotations

from pathlib import Path

URNS = {
    "MINIMUM": "urn:factur-x.eu:1p0:minimum",
    "BASIC WL": "urn:factur-x.eu:1p0:basicwl",
    "BASIC": "urn:cen.eu:en16931:2017#compliant#urn:factur-x.eu:1p0:basic",
    "EN16931": "urn:cen.eu:en16931:2017",
    "EXTENDED": "urn:cen.eu:en16931:2017#conformant#urn:factur-x.eu:1p0:extended",
    "XRECHNUNG 2.0": "urn:cen.eu:en16931:2017#compliant#urn:xoev-de:kosit:standard:xrechnung_2.0",
}

VALUES = {
    "invoice_number": "RE-2025-0042", "date": "2025-03-14", "due_date": "2025-04-13",
    "vendor_name": "Gießerei Nordlicht GmbH", "vendor_tax_id": "DE811234567",
    "buyer_name": "Bäckerei Sonnenschein KG", "buyer_tax_id": "DE299876543",
    "subtotal": "1250.00", "tax": "237.50", "total": "1487.50", "amount_due": "1487.50", "currency": "EUR",
    "iban": "DE02120300000000202051",
}


def cii_xml(profile: str = "EN16931", *, total: str = "1487.50", lines: bool = True, groups: bool = False) -> bytes:
    """A CII D16B invoice of ``profile`` (lines left out for MINIMUM / BASIC WL, as those profiles do)."""
    with_lines = lines and profile not in ("MINIMUM", "BASIC WL")
    items = ""
    if with_lines:
        rows = [("1", None, "Gusseisenpfanne 28 cm", "10", "100.00", "1000.00"),
                ("2", None, "Deckel", "5", "50.00", "250.00")]
        if groups:
            rows = [("G1", None, "Zwischensumme Kochgeschirr", "1", "1250.00", "1250.00"), *[(r[0], "G1", *r[2:]) for r in rows]]
        for line_id, parent, name, qty, price, amount in rows:
            parent_xml = f"<ram:ParentLineID>{parent}</ram:ParentLineID><ram:LineStatusReasonCode>DETAIL</ram:LineStatusReasonCode>" if parent else (
                "<ram:LineStatusReasonCode>GROUP</ram:LineStatusReasonCode>" if groups else "")
            items += f"""<ram:IncludedSupplyChainTradeLineItem>
  <ram:AssociatedDocumentLineDocument><ram:LineID>{line_id}</ram:LineID>{parent_xml}</ram:AssociatedDocumentLineDocument>
  <ram:SpecifiedTradeProduct><ram:Name>{name}</ram:Name></ram:SpecifiedTradeProduct>
  <ram:SpecifiedLineTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount>{price}</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedLineTradeAgreement>
  <ram:SpecifiedLineTradeDelivery><ram:BilledQuantity unitCode="C62">{qty}.0000</ram:BilledQuantity></ram:SpecifiedLineTradeDelivery>
  <ram:SpecifiedLineTradeSettlement><ram:ApplicableTradeTax><ram:TypeCode>VAT</ram:TypeCode><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>19</ram:RateApplicablePercent></ram:ApplicableTradeTax>
  <ram:SpecifiedTradeSettlementLineMonetarySummation><ram:LineTotalAmount>{amount}</ram:LineTotalAmount></ram:SpecifiedTradeSettlementLineMonetarySummation></ram:SpecifiedLineTradeSettlement>
</ram:IncludedSupplyChainTradeLineItem>
"""
    v = VALUES
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryInvoice xmlns:rsm="urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100"
 xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100"
 xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100">
<rsm:ExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>{URNS[profile]}</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:ExchangedDocumentContext>
<rsm:ExchangedDocument><ram:ID>{v['invoice_number']}</ram:ID><ram:TypeCode>380</ram:TypeCode>
<ram:IssueDateTime><udt:DateTimeString format="102">20250314</udt:DateTimeString></ram:IssueDateTime></rsm:ExchangedDocument>
<rsm:SupplyChainTradeTransaction>
{items}<ram:ApplicableHeaderTradeAgreement>
 <ram:SellerTradeParty><ram:Name>{v['vendor_name']}</ram:Name>
  <ram:PostalTradeAddress><ram:PostcodeCode>20095</ram:PostcodeCode><ram:LineOne>Hafenstraße 7</ram:LineOne><ram:CityName>Hamburg</ram:CityName><ram:CountryID>DE</ram:CountryID></ram:PostalTradeAddress>
  <ram:SpecifiedTaxRegistration><ram:ID schemeID="FC">22/815/08154</ram:ID></ram:SpecifiedTaxRegistration>
  <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">{v['vendor_tax_id']}</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty>
 <ram:BuyerTradeParty><ram:Name>{v['buyer_name']}</ram:Name>
  <ram:PostalTradeAddress><ram:PostcodeCode>80331</ram:PostcodeCode><ram:LineOne>Marktplatz 1</ram:LineOne><ram:CityName>München</ram:CityName><ram:CountryID>DE</ram:CountryID></ram:PostalTradeAddress>
  <ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">{v['buyer_tax_id']}</ram:ID></ram:SpecifiedTaxRegistration></ram:BuyerTradeParty>
</ram:ApplicableHeaderTradeAgreement>
<ram:ApplicableHeaderTradeDelivery/>
<ram:ApplicableHeaderTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
 <ram:SpecifiedTradeSettlementPaymentMeans><ram:TypeCode>58</ram:TypeCode><ram:PayeePartyCreditorFinancialAccount><ram:IBANID>DE02 1203 0000 0000 2020 51</ram:IBANID></ram:PayeePartyCreditorFinancialAccount></ram:SpecifiedTradeSettlementPaymentMeans>
 <ram:ApplicableTradeTax><ram:CalculatedAmount>237.50</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount>1250.00</ram:BasisAmount><ram:CategoryCode>S</ram:CategoryCode><ram:RateApplicablePercent>19.00</ram:RateApplicablePercent></ram:ApplicableTradeTax>
 <ram:SpecifiedTradePaymentTerms><ram:Description>Zahlbar innerhalb 30 Tagen netto</ram:Description><ram:DueDateDateTime><udt:DateTimeString format="102">20250413</udt:DateTimeString></ram:DueDateDateTime></ram:SpecifiedTradePaymentTerms>
 <ram:SpecifiedTradeSettlementHeaderMonetarySummation>
  <ram:LineTotalAmount>1250.00</ram:LineTotalAmount><ram:TaxBasisTotalAmount>1250.00</ram:TaxBasisTotalAmount>
  <ram:TaxTotalAmount currencyID="EUR">237.50</ram:TaxTotalAmount><ram:GrandTotalAmount>{total}</ram:GrandTotalAmount>
  <ram:DuePayableAmount>{total}</ram:DuePayableAmount></ram:SpecifiedTradeSettlementHeaderMonetarySummation>
</ram:ApplicableHeaderTradeSettlement>
</rsm:SupplyChainTradeTransaction>
</rsm:CrossIndustryInvoice>
""".encode()


def zugferd1_xml() -> bytes:
    """A ZUGFeRD 1.0 COMFORT invoice (CrossIndustryDocument, the 2014 element names)."""
    v = VALUES
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<rsm:CrossIndustryDocument xmlns:rsm="urn:ferd:CrossIndustryDocument:invoice:1p0"
 xmlns:ram="urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:12"
 xmlns:udt="urn:un:unece:uncefact:data:standard:UnqualifiedDataType:15">
<rsm:SpecifiedExchangedDocumentContext><ram:GuidelineSpecifiedDocumentContextParameter><ram:ID>urn:ferd:CrossIndustryDocument:invoice:1p0:comfort</ram:ID></ram:GuidelineSpecifiedDocumentContextParameter></rsm:SpecifiedExchangedDocumentContext>
<rsm:HeaderExchangedDocument><ram:ID>{v['invoice_number']}</ram:ID><ram:TypeCode>380</ram:TypeCode><ram:IssueDateTime><udt:DateTimeString format="102">20250314</udt:DateTimeString></ram:IssueDateTime></rsm:HeaderExchangedDocument>
<rsm:SpecifiedSupplyChainTradeTransaction>
<ram:ApplicableSupplyChainTradeAgreement>
 <ram:SellerTradeParty><ram:Name>{v['vendor_name']}</ram:Name><ram:SpecifiedTaxRegistration><ram:ID schemeID="VA">{v['vendor_tax_id']}</ram:ID></ram:SpecifiedTaxRegistration></ram:SellerTradeParty>
 <ram:BuyerTradeParty><ram:Name>{v['buyer_name']}</ram:Name></ram:BuyerTradeParty>
</ram:ApplicableSupplyChainTradeAgreement>
<ram:ApplicableSupplyChainTradeSettlement><ram:InvoiceCurrencyCode>EUR</ram:InvoiceCurrencyCode>
 <ram:ApplicableTradeTax><ram:CalculatedAmount currencyID="EUR">237.50</ram:CalculatedAmount><ram:TypeCode>VAT</ram:TypeCode><ram:BasisAmount currencyID="EUR">1250.00</ram:BasisAmount><ram:ApplicablePercent>19.00</ram:ApplicablePercent></ram:ApplicableTradeTax>
 <ram:SpecifiedTradeSettlementMonetarySummation><ram:LineTotalAmount currencyID="EUR">1250.00</ram:LineTotalAmount><ram:TaxBasisTotalAmount currencyID="EUR">1250.00</ram:TaxBasisTotalAmount><ram:TaxTotalAmount currencyID="EUR">237.50</ram:TaxTotalAmount><ram:GrandTotalAmount currencyID="EUR">1487.50</ram:GrandTotalAmount><ram:DuePayableAmount currencyID="EUR">1487.50</ram:DuePayableAmount></ram:SpecifiedTradeSettlementMonetarySummation>
</ram:ApplicableSupplyChainTradeSettlement>
<ram:IncludedSupplyChainTradeLineItem><ram:AssociatedDocumentLineDocument><ram:LineID>1</ram:LineID></ram:AssociatedDocumentLineDocument>
 <ram:SpecifiedSupplyChainTradeAgreement><ram:NetPriceProductTradePrice><ram:ChargeAmount currencyID="EUR">125.0000</ram:ChargeAmount></ram:NetPriceProductTradePrice></ram:SpecifiedSupplyChainTradeAgreement>
 <ram:SpecifiedSupplyChainTradeDelivery><ram:BilledQuantity unitCode="C62">10.0000</ram:BilledQuantity></ram:SpecifiedSupplyChainTradeDelivery>
 <ram:SpecifiedSupplyChainTradeSettlement><ram:SpecifiedTradeSettlementMonetarySummation><ram:LineTotalAmount currencyID="EUR">1250.00</ram:LineTotalAmount></ram:SpecifiedTradeSettlementMonetarySummation></ram:SpecifiedSupplyChainTradeSettlement>
 <ram:SpecifiedTradeProduct><ram:Name>Gusseisenpfanne</ram:Name></ram:SpecifiedTradeProduct></ram:IncludedSupplyChainTradeLineItem>
</rsm:SpecifiedSupplyChainTradeTransaction>
</rsm:CrossIndustryDocument>
""".encode()


def ubl_xml(kind: str = "Invoice") -> bytes:
    """An XRechnung 2.0 UBL Invoice (or CreditNote) with one line."""
    v = VALUES
    line, qty = ("InvoiceLine", "InvoicedQuantity") if kind == "Invoice" else ("CreditNoteLine", "CreditedQuantity")
    type_el = "<cbc:InvoiceTypeCode>380</cbc:InvoiceTypeCode>" if kind == "Invoice" else "<cbc:CreditNoteTypeCode>381</cbc:CreditNoteTypeCode>"
    def party(name: str, vat: str, street: str) -> str:
        return f"""<cac:Party><cac:PartyName><cbc:Name>{name} (Handelsname)</cbc:Name></cac:PartyName>
<cac:PostalAddress><cbc:StreetName>{street}</cbc:StreetName><cbc:CityName>Berlin</cbc:CityName><cbc:PostalZone>10115</cbc:PostalZone><cac:Country><cbc:IdentificationCode>DE</cbc:IdentificationCode></cac:Country></cac:PostalAddress>
<cac:PartyTaxScheme><cbc:CompanyID>{vat}</cbc:CompanyID><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:PartyTaxScheme>
<cac:PartyLegalEntity><cbc:RegistrationName>{name}</cbc:RegistrationName></cac:PartyLegalEntity></cac:Party>"""
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<ubl:{kind} xmlns:ubl="urn:oasis:names:specification:ubl:schema:xsd:{kind}-2"
 xmlns:cac="urn:oasis:names:specification:ubl:schema:xsd:CommonAggregateComponents-2"
 xmlns:cbc="urn:oasis:names:specification:ubl:schema:xsd:CommonBasicComponents-2">
<cbc:CustomizationID>{URNS['XRECHNUNG 2.0']}</cbc:CustomizationID>
<cbc:ID>{v['invoice_number']}</cbc:ID><cbc:IssueDate>2025-03-14+01:00</cbc:IssueDate><cbc:DueDate>2025-04-13</cbc:DueDate>{type_el}
<cbc:DocumentCurrencyCode>EUR</cbc:DocumentCurrencyCode>
<cac:AccountingSupplierParty>{party(v['vendor_name'], v['vendor_tax_id'], 'Hafenstraße 7')}</cac:AccountingSupplierParty>
<cac:AccountingCustomerParty>{party(v['buyer_name'], v['buyer_tax_id'], 'Marktplatz 1')}</cac:AccountingCustomerParty>
<cac:PaymentMeans><cbc:PaymentMeansCode>58</cbc:PaymentMeansCode><cac:PayeeFinancialAccount><cbc:ID>{v['iban']}</cbc:ID></cac:PayeeFinancialAccount></cac:PaymentMeans>
<cac:PaymentTerms><cbc:Note>Zahlbar innerhalb 30 Tagen netto</cbc:Note></cac:PaymentTerms>
<cac:TaxTotal><cbc:TaxAmount currencyID="EUR">237.50</cbc:TaxAmount>
 <cac:TaxSubtotal><cbc:TaxableAmount currencyID="EUR">1250.00</cbc:TaxableAmount><cbc:TaxAmount currencyID="EUR">237.50</cbc:TaxAmount><cac:TaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>19</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:TaxCategory></cac:TaxSubtotal></cac:TaxTotal>
<cac:LegalMonetaryTotal><cbc:LineExtensionAmount currencyID="EUR">1250.00</cbc:LineExtensionAmount><cbc:TaxExclusiveAmount currencyID="EUR">1250.00</cbc:TaxExclusiveAmount><cbc:TaxInclusiveAmount currencyID="EUR">1487.50</cbc:TaxInclusiveAmount><cbc:PayableAmount currencyID="EUR">1487.50</cbc:PayableAmount></cac:LegalMonetaryTotal>
<cac:{line}><cbc:ID>1</cbc:ID><cbc:{qty} unitCode="C62">10</cbc:{qty}><cbc:LineExtensionAmount currencyID="EUR">1250.00</cbc:LineExtensionAmount>
 <cac:Item><cbc:Name>Gusseisenpfanne 28 cm</cbc:Name><cac:ClassifiedTaxCategory><cbc:ID>S</cbc:ID><cbc:Percent>19</cbc:Percent><cac:TaxScheme><cbc:ID>VAT</cbc:ID></cac:TaxScheme></cac:ClassifiedTaxCategory></cac:Item>
 <cac:Price><cbc:PriceAmount currencyID="EUR">125.00</cbc:PriceAmount></cac:Price></cac:{line}>
</ubl:{kind}>
""".encode()


def page_lines(*, total: str = "1.487,50", vendor: str | None = None) -> list[str]:
    """The printed page of the fixture invoice (German notation), as text lines."""
    v = VALUES
    return [vendor or v["vendor_name"], "Hafenstraße 7, 20095 Hamburg", f"USt-IdNr. {v['vendor_tax_id']}", "",
            v["buyer_name"], "Marktplatz 1, 80331 München", "",
            f"Rechnung Nr. {v['invoice_number']}", "Rechnungsdatum: 14.03.2025", "Fällig am: 13.04.2025", "",
            "Gusseisenpfanne 28 cm   10 x 100,00   1.000,00", "Deckel   5 x 50,00   250,00", "",
            "Nettobetrag   1.250,00 EUR", "USt. 19 %   237,50 EUR", f"Gesamtbetrag   {total} EUR",
            f"IBAN {v['iban']}"]


def facturx_pdf(path: Path, xml: bytes | None, *, lines: list[str] | None = None, name: str = "factur-x.xml",
                pages: int = 1) -> Path:
    """Write a PDF whose page prints ``lines`` and which embeds ``xml`` as ``name`` (PDF/A-3 style
    attachment, also referenced from the catalog's /AF array)."""
    import pymupdf

    doc = pymupdf.open()
    for i in range(pages):
        page = doc.new_page(width=595, height=842)
        text = lines if (lines is not None and i == pages - 1) else (page_lines() if i == pages - 1 else [f"Seite {i + 1}"])
        y = 60
        for ln in text:
            if ln:
                page.insert_text((50, y), ln, fontsize=10, fontname="helv")
            y += 16
    if xml is not None:
        doc.embfile_add(name, xml, filename=name, ufilename=name, desc="Factur-X invoice")
    doc.save(str(path))
    doc.close()
    return path
