"""Chinese VAT invoices (增值税专用发票 / 增值税普通发票 / 增值税电子普通发票) read by PP-OCR.

Layout (State Taxation Administration invoice format, 国家税务总局 发票监制): title and the invoice
code / number / date / check code at the top (code and number also printed at the top left / right
without labels on paper invoices), then the buyer block (购买方: 名称, 纳税人识别号, 地址、电话,
开户行及账号) beside the cipher area (密码区), the items table (货物或应税劳务、服务名称, 规格型号, 单位,
数量, 单价, 金额, 税率, 税额) ending with the 合计 row (subtotal and tax), the 价税合计 row (total in
words 大写 and in figures 小写), and the seller block (销售方) below. The buyer block is above the
seller block.

The QR code (see :mod:`desktop.core.extraction.qr`) is used to fill and cross-check the invoice code,
number, date, amount before tax and check code.
"""
from __future__ import annotations

import re

from desktop.core.extraction.dates import find_dates
from desktop.core.extraction.layout import Candidate, Layout, Ln
from desktop.core.extraction.parsers import amount_finder, money_tokens
from desktop.core.extraction.validators import parse_chinese_amount

__all__ = ["extract_cn_vat", "amount_in_words"]

_CJK = re.compile(r"[\u4e00-\u9fff]")
_LABEL_WORDS = re.compile(r"名\s*称|纳税人|识别号|地址|电话|开户行|账号|密码|购买方|销售方|备注")
_TAX_ID_RE = re.compile(r"(?<![0-9A-Z])[0-9A-Z]{15,20}(?![0-9A-Z])")


def _digits_after(layout: Layout, label: re.Pattern[str], lengths: tuple[int, ...]) -> Candidate | None:
    """Digits printed after a label (same line, or boxes to the right), spaces between groups allowed."""
    for ln in layout.lines:
        m = label.search(ln.text)
        if not m:
            continue
        pieces = [(ln.text[m.end():], ln)] + [(o.text, o) for o in layout.right_of(ln)[:3]]
        text, used = "", []
        for t, o in pieces:
            if re.search(r"\d", t):
                text += " " + t
                used.append(o)
            digits = re.sub(r"[\s:：]", "", text)
            m2 = re.match(r"\D{0,3}(\d+)", digits)
            if m2 and len(m2.group(1)) in lengths:
                return Candidate(m2.group(1), text.strip(" :："), used, [], 0.95)
        digits = re.sub(r"\D", "", text)
        if digits:
            return Candidate(digits, text.strip(" :："), used, [], 0.6)
    return None


def _top(layout: Layout, ln: Ln, frac: float = 0.3) -> bool:
    return ln.rel_y <= frac


def pick_code_number(layout: Layout) -> tuple[Candidate | None, Candidate | None]:
    """Invoice code (发票代码, 10/12 digits) and number (发票号码, 8/20 digits)."""
    code = _digits_after(layout, re.compile(r"发票代码"), (10, 12))
    number = _digits_after(layout, re.compile(r"发票号码"), (8, 20))
    if code is None or len(code.value or "") not in (10, 12):
        for ln in layout.lines:
            if _top(layout, ln) and re.fullmatch(r"\D{0,2}(\d{10}|\d{12})\D{0,2}", ln.text.replace(" ", "")):
                value = re.sub(r"\D", "", ln.text)
                code = Candidate(value, ln.text, [ln], [], 0.8)
                break
    if number is None or len(number.value or "") not in (8, 20):
        best = None
        for ln in layout.lines:
            if not _top(layout, ln):
                continue
            t = ln.text.replace(" ", "")
            m = re.fullmatch(r"N[o0O°º][.:：]?(\d{8})", t, re.I)
            if m:
                best = Candidate(m.group(1), ln.text, [ln], [], 0.85)
                break
            if best is None and re.fullmatch(r"\d{8}", t):
                best = Candidate(t, ln.text, [ln], [], 0.75)
        number = best or number
    return code, number


def pick_date(layout: Layout) -> Candidate | None:
    """开票日期 (YYYY年MM月DD日; OCR often drops 年月日 and splits the date over boxes)."""
    for ln in layout.lines:
        if "开票日期" in ln.text or "日期" in ln.text:
            pieces = [ln] + layout.right_of(ln)[:3]
            text = " ".join(p.text for p in pieces)
            text = text[text.find("期") + 1:]
            found = find_dates(text, "YMD")
            if found:
                d = found[0]
                return Candidate(d.value, d.raw, pieces, list(d.problems), 0.95)
    for ln in layout.lines:
        for d in find_dates(ln.text, "YMD"):
            if d.order == "YMD":
                return Candidate(d.value, d.raw, [ln], list(d.problems), 0.75)
    return None


def pick_check_code(layout: Layout) -> Candidate | None:
    """校验码: 20 digits, printed in groups of five."""
    c = _digits_after(layout, re.compile(r"校\s*验\s*码"), (20,))
    return c


def _split_y(layout: Layout) -> float | None:
    """A y between the buyer block and the seller block (page pixels), from the block markers."""
    for pattern in (r"销\s*售\s*方", r"价\s*税\s*合\s*计"):
        for ln in layout.lines:
            if re.search(pattern, ln.text) and "章" not in ln.text and ln.rel_y > 0.35:
                return ln.y0 - 0.5 * ln.h
    return None


def _cipher_x(layout: Layout) -> float | None:
    for ln in layout.lines:
        if re.search(r"密\s*码|^密$", ln.text):
            return ln.x0
    return None


def _party_value(layout: Layout, label: re.Pattern[str], in_block, parse, max_x: float | None) -> Candidate | None:
    for ln in layout.lines:
        if not in_block(ln) or (max_x is not None and ln.x0 >= max_x):
            continue
        m = label.search(ln.text)
        if not m:
            continue
        rest = ln.text[m.end():].strip(" :：")
        got = parse(rest) if rest else None
        if got:
            return Candidate(got, rest, [ln], [], 0.9)
        for o in layout.right_of(ln)[:3]:
            if max_x is not None and o.x0 >= max_x:
                break
            got = parse(o.text.strip(" :："))
            if got:
                return Candidate(got, o.text, [o], [], 0.85)
    return None


def _name(text: str) -> str | None:
    t = re.sub(r"^[称稱名\s:：]+", "", text).strip()
    if not _CJK.search(t) and not re.search(r"[A-Za-z]{3,}", t):
        return None
    if _LABEL_WORDS.search(t) and len(t) < 8:
        return None
    if _CJK.search(t):  # Chinese text uses full-width parentheses
        t = t.replace("(", "（").replace(")", "）")
    return t or None


def _tax_id(text: str) -> str | None:
    m = _TAX_ID_RE.search(text.upper().replace(" ", ""))
    return m.group(0) if m else None


def _address(text: str) -> str | None:
    t = text.strip(" :：")
    return t if len(t) >= 4 and _CJK.search(t) else None


def _side_by_side_x(layout: Layout) -> float | None:
    """The x where the seller block starts on a 数电票 (fully digital invoice), whose 购买方信息 and
    销售方信息 blocks stand side by side (GB/T 33190 OFD and PDF layouts of the national e-invoice
    platform), or ``None`` on the older layout, where the seller block lies below the buyer's.

    Rule: a line starting 销 (the vertical label 销售方信息, or its first character) at the height of a
    line starting 购, to its right, on the same page."""
    buyers = [ln for ln in layout.lines if ln.text.startswith("购")]
    for s in layout.lines:
        if not s.text.startswith("销"):
            continue
        for b in buyers:
            if b.page == s.page and abs(b.cy - s.cy) < max(b.h, s.h) and s.x0 > b.x1 + 5 * max(b.h, 1.0):
                return s.x0
    return None


def pick_parties(layout: Layout) -> dict[str, Candidate | None]:
    """购买方 / 销售方 名称, 纳税人识别号 and the seller's 地址、电话 (blocks one above the other, or side by
    side on a 数电票: :func:`_side_by_side_x`)."""
    split = _split_y(layout)
    if split is None:
        split = layout.lines[0].page_height * 0.6 if layout.lines else 0.0
    cipher = _cipher_x(layout)
    buyer = lambda ln: ln.cy < split  # noqa: E731
    seller = lambda ln: ln.cy >= split  # noqa: E731
    buyer_max, seller_max = cipher, cipher
    side = _side_by_side_x(layout)
    if side is not None:
        buyer = lambda ln: ln.x0 < side  # noqa: E731
        seller = lambda ln: ln.x0 >= side  # noqa: E731
        buyer_max, seller_max = side, None
    name_label = re.compile(r"名\s*称\s*[:：]?|^称\s*[:：]|^[名称]$")
    id_label = re.compile(r"纳税人识别号\s*[:：]?|识别号\s*[:：]?")
    addr_label = re.compile(r"地\s*址\s*[、,，]?\s*电\s*话\s*[:：]?")
    return {
        "buyer_name": _party_value(layout, name_label, buyer, _name, buyer_max),
        "buyer_tax_id": _party_value(layout, id_label, buyer, _tax_id, buyer_max),
        "vendor_name": _party_value(layout, name_label, seller, _name, seller_max),
        "vendor_tax_id": _party_value(layout, id_label, seller, _tax_id, seller_max),
        "vendor_address": _party_value(layout, addr_label, seller, _address, seller_max),
    }


def amount_in_words(layout: Layout) -> Candidate | None:
    """The 价税合计 (大写) amount in words, parsed (e.g. ``壹佰壹拾贰圆贰角整`` -> ``112.20``)."""
    for ln in layout.lines:
        if re.search(r"[圆元角]", ln.text) and re.search(r"[壹贰叁肆伍陆柒捌玖拾佰仟万零]", ln.text):
            value = parse_chinese_amount(ln.text)
            if value:
                return Candidate(value, ln.text, [ln], [], 0.8)
    return None


def pick_amounts(layout: Layout) -> dict[str, Candidate | None]:
    """合计 row (subtotal, tax) and 价税合计 (小写) total."""
    total = None
    words = amount_in_words(layout)
    find = amount_finder(need_decimals=True)
    for ln in layout.lines:
        if "小写" in ln.text:
            got = find(ln.text.split("写", 1)[1])
            if got:
                total = Candidate(got[0], got[1], [ln], [], 0.95)
                break
            for o in layout.right_of(ln)[:2]:
                got = find(o.text)
                if got:
                    total = Candidate(got[0], got[1], [o], [], 0.93)
                    break
            if total:
                break
    # 合计 row: amounts with a yuan sign above the 价税合计 row
    anchor_y = None
    for ln in layout.lines:
        if re.search(r"价\s*税\s*合\s*计|小写|大写", ln.text):
            anchor_y = ln.y0
            break
    yuan = [ln for ln in layout.lines if re.match(r"^\W{0,2}[¥￥Y]\s*\d", ln.text) and "写" not in ln.text
            and (total is None or ln not in total.lines) and (anchor_y is None or ln.cy < anchor_y)]
    subtotal = tax = None
    if yuan:
        last = max(yuan, key=lambda ln: ln.cy)
        row = sorted([ln for ln in yuan if abs(ln.cy - last.cy) < 1.2 * last.h], key=lambda ln: ln.x0)
        vals = [(v, ln) for ln in row if (v := find(ln.text))]
        if vals:
            subtotal = Candidate(vals[0][0][0], vals[0][0][1], [vals[0][1]], [], 0.9)
        if len(vals) >= 2:
            tax = Candidate(vals[-1][0][0], vals[-1][0][1], [vals[-1][1]], [], 0.9)
    if total is None and words is not None:
        total = Candidate(words.value, words.raw, words.lines, [], 0.7)
    return {"subtotal": subtotal, "tax": tax, "total": total, "_words": words}


#: Column headers of the goods table (STA invoice format): 规格型号, 单位, 数量, 单价, 金额, 税率, 税额.
_COLUMN_LABELS = (("quantity", r"数\s*量"), ("unit_price", r"单\s*价"), ("amount", r"金\s*额"),
                  ("tax_rate", r"税\s*率"), ("tax", r"税\s*额"), ("unit", r"单\s*位"))


def _header_columns(row: list[Ln]) -> dict[str, float]:
    """Column centres (page-pixel x) of the goods table from its header row.

    OCR often splits a two-character header into one box per character (``金`` ``额``, ``税`` ``额``),
    so neighbouring boxes of the row (gap under two character heights) are joined when a box alone
    is no label but the pair is; each label's centre is the middle of its (joined) box.
    """
    row = sorted(row, key=lambda o: o.x0)
    cols: dict[str, float] = {}

    def label_of(text: str) -> str | None:
        t = re.sub(r"\s+", "", text)
        for key, rx in _COLUMN_LABELS:
            if re.fullmatch(rx, t) or (len(t) > 2 and re.search(rx, t)):
                return key
        return None

    i = 0
    while i < len(row):
        ln = row[i]
        key, x0, x1, step = label_of(ln.text), ln.x0, ln.x1, 1
        if key is None and i + 1 < len(row) and row[i + 1].x0 - ln.x1 < 2 * ln.h:
            key = label_of(ln.text + row[i + 1].text)
            if key is not None:
                x1, step = max(x1, row[i + 1].x1), 2
        if key is None and re.fullmatch(r"\s*金\s*", ln.text):
            key = "amount"  # 额 lost by OCR
        if key is not None and key not in cols:
            cols[key] = (x0 + x1) / 2
        i += step
    return cols


def _money_column(cols: dict[str, float], cx: float, item: dict) -> str | None:
    """The column of a number at page-pixel x ``cx``: the nearest numeric column by header centre
    (the tax rate is recognised by its ``%``, not by position, since the narrow 税率 column sits
    between the right-aligned 金额 and 税额 figures); a column already filled passes the number on
    to the next free column to its right (the table's columns never hold two numbers per row)."""
    keys = sorted((k for k in cols if k not in ("tax_rate", "unit")), key=lambda k: cols[k])
    if not keys:
        return None
    best = min(keys, key=lambda k: abs(cols[k] - cx))
    for k in keys[keys.index(best):]:
        if k not in item:
            return k
    return None


def line_items(layout: Layout) -> list[dict]:
    """Item rows of the goods table (best effort): name, quantity, unit_price, amount, tax_rate, tax."""
    header = next((ln for ln in layout.lines if re.search(r"货物|服务名称|项目名称", ln.text)), None)
    if header is None:
        return []
    cols = _header_columns(layout.row(header))
    end = next((ln.y0 for ln in layout.lines if ln.cy > header.y1 and re.search(r"^\W*[¥￥]|合|^计$|价税", ln.text)), None)
    body = [ln for ln in layout.lines if ln.page == header.page and ln.cy > header.y1 and (end is None or ln.cy < end)
            and ln.h < 2 * (ln.x1 - ln.x0)]  # vertical side text (printer's imprint) is not an item
    rows: list[list[Ln]] = []
    for ln in body:
        for r in rows:
            if layout.same_row(ln, r[0]):
                r.append(ln)
                break
        else:
            rows.append([ln])
    items = []
    for r in rows:
        item: dict = {"description": None}
        for ln in sorted(r, key=lambda x: x.x0):
            if _CJK.search(ln.text) and item["description"] is None and ln.x1 < (cols.get("unit", 1e9)):
                item["description"] = ln.text
                continue
            if re.fullmatch(r"\d{1,2}%", ln.text.strip()):
                item["tax_rate"] = ln.text.strip()
                continue
            toks = money_tokens(ln.text)
            if not toks or not cols:
                continue
            key = _money_column(cols, (ln.x0 + ln.x1) / 2, item)
            if key in ("quantity", "unit_price"):
                item[key] = re.sub(r"[^\d.]", "", ln.text) or None
            elif key in ("amount", "tax"):
                item[key] = toks[-1][0]
        if item.get("amount") or item.get("description") and len(item) > 1:
            items.append(item)
    return items


def extract_cn_vat(layout: Layout) -> tuple[dict[str, Candidate | None], list[dict]]:
    """Every Chinese VAT invoice field as a candidate, and the item rows."""
    code, number = pick_code_number(layout)
    out: dict[str, Candidate | None] = {
        "invoice_code": code,
        "invoice_number": number,
        "date": pick_date(layout),
        "check_code": pick_check_code(layout),
    }
    out.update(pick_parties(layout))
    out.update(pick_amounts(layout))
    return out, line_items(layout)
