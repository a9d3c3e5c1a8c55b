"""Small OFD packages written for the tests (GB/T 33190-2016 structure), with made-up invoices.

Options: several pages, an attached invoice XML (the 2019 ``eInvoice`` schema) or none, the QR code
drawn as vector paths or placed as a PNG image (or absent), fonts that exist nowhere, a 数电票 (20-digit
number, no code) or an older electronic VAT invoice.
"""
from __future__ import annotations

import io
import zipfile
from pathlib import Path

import numpy as np

NS = "http://www.ofdspec.org/2016"

DIGITAL = {
    "invoice_type": "电子发票（普通发票）", "invoice_number": "25312000000012345678", "date": "2025-06-18",
    "buyer_name": "上海云杉贸易有限公司", "buyer_tax_id": "91310000MA1FL0WX3W",
    "vendor_name": "杭州青石餐饮管理有限公司", "vendor_tax_id": "91330100MA2CF6XN52",
    "subtotal": "990.10", "tax": "9.90", "total": "1000.00",
}


def qr_payload(total: str = "1000.00") -> str:
    """The 数电票 QR text: ``01,32,,<number>,<total incl. tax>,<YYYYMMDD>,,<CRC>``."""
    return f"01,32,,{DIGITAL['invoice_number']},{total},{DIGITAL['date'].replace('-', '')},,5A3C"


def _modules(text: str) -> np.ndarray:
    import zxingcpp

    img = np.asarray(zxingcpp.create_barcode(text, zxingcpp.BarcodeFormat.QRCode).to_image(scale=1))
    return img < 128  # True = dark module (the image includes the quiet zone)


def _qr_png(text: str) -> bytes:
    from PIL import Image

    dark = _modules(text)
    im = Image.fromarray(np.where(dark, 0, 255).astype(np.uint8)).resize((dark.shape[1] * 8, dark.shape[0] * 8), Image.NEAREST)
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


def _qr_paths(text: str, x: float, y: float, size: float) -> str:
    dark = _modules(text)
    cell = size / dark.shape[0]
    cmds = []
    for r, c in zip(*np.nonzero(dark)):
        x0, y0 = c * cell, r * cell
        cmds.append(f"M {x0:.3f} {y0:.3f} L {x0 + cell:.3f} {y0:.3f} L {x0 + cell:.3f} {y0 + cell:.3f} L {x0:.3f} {y0 + cell:.3f} C")
    return (f'<ofd:PathObject ID="900" Boundary="{x} {y} {size} {size}" Stroke="false" Fill="true">'
            f'<ofd:FillColor Value="0 0 0"/><ofd:AbbreviatedData>{" ".join(cmds)}</ofd:AbbreviatedData></ofd:PathObject>')


def _text(oid: int, x: float, y: float, text: str, size: float = 3.5, font: str = "2") -> str:
    step = size * (0.55 if text.isascii() else 1.0)
    delta = f'DeltaX="g {len(text) - 1} {step}"' if len(text) > 1 else ""
    return (f'<ofd:TextObject ID="{oid}" Boundary="{x} {y} 120 {size * 1.4:.2f}" Font="{font}" Size="{size}">'
            f'<ofd:FillColor Value="0 0 0"/><ofd:TextCode X="0" Y="{size:.2f}" {delta}><![CDATA[{text}]]></ofd:TextCode></ofd:TextObject>')


def invoice_xml(values: dict[str, str]) -> bytes:
    """The 2019 e-invoice XML (``<eInvoice>`` with ``fp:`` children) for ``values``."""
    v = values
    return f"""<?xml version="1.0" encoding="utf-8"?>
<eInvoice xmlns:fp="http://www.edrm.org.cn/schema/e-invoice/2019" Version="1.0">
<fp:InvoiceNo>{v['invoice_number']}</fp:InvoiceNo><fp:IssueDate>{v['date'][:4]}年{v['date'][5:7]}月{v['date'][8:]}日</fp:IssueDate>
<fp:Buyer><fp:BuyerName>{v['buyer_name']}</fp:BuyerName><fp:BuyerTaxID>{v['buyer_tax_id']}</fp:BuyerTaxID></fp:Buyer>
<fp:Seller><fp:SellerName>{v['vendor_name']}</fp:SellerName><fp:SellerTaxID>{v['vendor_tax_id']}</fp:SellerTaxID></fp:Seller>
<fp:TaxInclusiveTotalAmount>{v['total']}</fp:TaxInclusiveTotalAmount><fp:TaxTotalAmount>{v['tax']}</fp:TaxTotalAmount>
<fp:TaxExclusiveTotalAmount>{v['subtotal']}</fp:TaxExclusiveTotalAmount>
<fp:GoodsInfos><fp:GoodsInfo><fp:Item>*餐饮服务*餐费</fp:Item><fp:Quantity>1</fp:Quantity><fp:Price>990.099</fp:Price>
<fp:Amount>{v['subtotal']}</fp:Amount><fp:TaxScheme>1%</fp:TaxScheme><fp:TaxAmount>{v['tax']}</fp:TaxAmount></fp:GoodsInfo>
<fp:GoodsInfo><fp:Item>*农产品*大米</fp:Item><fp:Quantity>1</fp:Quantity><fp:Amount>0.00</fp:Amount><fp:TaxScheme>免税</fp:TaxScheme><fp:TaxAmount>***</fp:TaxAmount></fp:GoodsInfo>
</fp:GoodsInfos></eInvoice>""".encode()


def page_content(values: dict[str, str], *, qr: str | None, page: int = 1, pages: int = 1,
                 font: str = "2") -> str:
    v = values
    objs = []
    if page == 1:
        objs += [
            _text(10, 70, 8, v["invoice_type"], 6, font), _text(11, 150, 18, f"发票号码：{v['invoice_number']}", 3.2, font),
            _text(12, 150, 24, f"开票日期：{v['date'][:4]}年{v['date'][5:7]}月{v['date'][8:]}日", 3.2, font),
            _text(13, 12, 40, f"购买方名称：{v['buyer_name']}", 3.2, font),
            _text(14, 12, 46, f"统一社会信用代码/纳税人识别号：{v['buyer_tax_id']}", 3.2, font),
            _text(15, 110, 40, f"销售方名称：{v['vendor_name']}", 3.2, font),
            _text(16, 110, 46, f"统一社会信用代码/纳税人识别号：{v['vendor_tax_id']}", 3.2, font),
            _text(17, 12, 58, "项目名称", 3.2, font), _text(18, 120, 58, "金额", 3.2, font), _text(19, 150, 58, "税率", 3.2, font),
            _text(20, 175, 58, "税额", 3.2, font),
            _text(21, 12, 64, "*餐饮服务*餐费", 3.2, font), _text(22, 120, 64, v["subtotal"], 3.2, font),
            _text(23, 150, 64, "1%", 3.2, font), _text(24, 175, 64, v["tax"], 3.2, font),
            _text(25, 12, 70, "*农产品*大米", 3.2, font), _text(26, 120, 70, "0.00", 3.2, font),
            _text(27, 150, 70, "免税", 3.2, font), _text(28, 175, 70, "***", 3.2, font),
            _text(29, 12, 90, "合计", 3.2, font), _text(30, 120, 90, f"¥{v['subtotal']}", 3.2, font),
            _text(31, 175, 90, f"¥{v['tax']}", 3.2, font),
            _text(32, 12, 98, "价税合计（大写）", 3.2, font), _text(33, 60, 98, "壹仟圆整", 3.2, font),
            _text(34, 130, 98, f"（小写）¥{v['total']}", 3.2, font),
            '<ofd:PathObject ID="40" Boundary="10 36 190 70" LineWidth="0.25"><ofd:StrokeColor Value="128 0 0"/>'
            '<ofd:AbbreviatedData>M 0 0 L 190 0 L 190 70 L 0 70 C</ofd:AbbreviatedData></ofd:PathObject>',
        ]
        if qr == "vector":
            objs.append(_qr_paths(qr_payload(v["total"]), 8, 4, 24))
        elif qr == "image":
            objs.append('<ofd:ImageObject ID="901" Boundary="8 4 24 24" CTM="24 0 0 24 0 0" ResourceID="50"/>')
    else:
        objs.append(_text(10, 12, 12, f"销售货物或者提供应税劳务清单 第{page}页/共{pages}页", 4, font))
    return (f'<?xml version="1.0" encoding="UTF-8"?><ofd:Page xmlns:ofd="{NS}"><ofd:Content><ofd:Layer ID="1">'
            + "".join(objs) + "</ofd:Layer></ofd:Content></ofd:Page>")


def make_ofd(path: Path, *, values: dict[str, str] | None = None, xml: bytes | None | bool = True,
             qr: str | None = "vector", pages: int = 1, font_name: str = "宋体", qr_total: str | None = None,
             custom_data: bool = False) -> Path:
    """Write an OFD invoice package.

    Args:
        values: the invoice (default :data:`DIGITAL`).
        xml: ``True`` attaches the invoice XML for ``values``; bytes attach those bytes; ``False``/``None``
            attaches nothing.
        qr: ``"vector"`` (paths), ``"image"`` (a PNG resource) or ``None``.
        pages: number of pages (pages after the first are goods-list pages).
        font_name: the font the package names (need not exist anywhere).
        qr_total: the QR code's amount, when it should differ from the invoice's total.
        custom_data: also put 发票号码/合计金额 etc. into OFD.xml's CustomData.
    """
    v = dict(values or DIGITAL)
    custom = ""
    if custom_data:
        custom = ("<ofd:CustomDatas>" + "".join(f'<ofd:CustomData Name="{k}">{val}</ofd:CustomData>' for k, val in (
            ("发票号码", v["invoice_number"]), ("合计金额", v["subtotal"]), ("合计税额", v["tax"]),
            ("开票日期", f"{v['date'][:4]}年{v['date'][5:7]}月{v['date'][8:]}日"), ("销售方纳税人识别号", v["vendor_tax_id"]))) + "</ofd:CustomDatas>")
    ofd_xml = (f'<?xml version="1.0" encoding="UTF-8"?><ofd:OFD xmlns:ofd="{NS}" DocType="OFD" Version="1.0"><ofd:DocBody>'
               f"<ofd:DocInfo><ofd:DocID>0f0f</ofd:DocID>{custom}</ofd:DocInfo><ofd:DocRoot>Doc_0/Document.xml</ofd:DocRoot>"
               "</ofd:DocBody></ofd:OFD>")
    page_refs = "".join(f'<ofd:Page ID="{100 + i}" BaseLoc="Pages/Page_{i}/Content.xml"/>' for i in range(pages))
    attach = "<ofd:Attachments>Attachs/Attachments.xml</ofd:Attachments>" if xml else ""
    document = (f'<?xml version="1.0" encoding="UTF-8"?><ofd:Document xmlns:ofd="{NS}"><ofd:CommonData>'
                "<ofd:PageArea><ofd:PhysicalBox>0 0 210 140</ofd:PhysicalBox></ofd:PageArea>"
                "<ofd:PublicRes>PublicRes.xml</ofd:PublicRes></ofd:CommonData>"
                f"<ofd:Pages>{page_refs}</ofd:Pages>{attach}</ofd:Document>")
    res = (f'<?xml version="1.0" encoding="UTF-8"?><ofd:Res xmlns:ofd="{NS}" BaseLoc="Res"><ofd:Fonts>'
           f'<ofd:Font ID="2" FontName="{font_name}" FamilyName="{font_name}"/></ofd:Fonts>'
           '<ofd:MultiMedias><ofd:MultiMedia ID="50" Type="Image" Format="PNG"><ofd:MediaFile>qr.png</ofd:MediaFile>'
           "</ofd:MultiMedia></ofd:MultiMedias></ofd:Res>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("OFD.xml", ofd_xml)
        z.writestr("Doc_0/Document.xml", document)
        z.writestr("Doc_0/PublicRes.xml", res)
        shown = dict(v)
        for i in range(pages):
            content = page_content(v, qr=qr, page=i + 1, pages=pages)
            if qr_total and i == 0 and qr == "vector":
                content = content.replace(_qr_paths(qr_payload(v["total"]), 8, 4, 24), _qr_paths(qr_payload(qr_total), 8, 4, 24))
            z.writestr(f"Doc_0/Pages/Page_{i}/Content.xml", content)
        if qr == "image":
            z.writestr("Doc_0/Res/qr.png", _qr_png(qr_payload(qr_total or v["total"])))
        if xml:
            data = invoice_xml(shown) if xml is True else xml
            z.writestr("Doc_0/Attachs/Attachments.xml",
                       f'<?xml version="1.0" encoding="UTF-8"?><ofd:Attachments xmlns:ofd="{NS}"><ofd:Attachment ID="60" '
                       'Name="original_invoice" Format="xml"><ofd:FileLoc>original_invoice.xml</ofd:FileLoc></ofd:Attachment></ofd:Attachments>')
            z.writestr("Doc_0/Attachs/original_invoice.xml", data)
    return path
