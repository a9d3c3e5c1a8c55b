"""Diagnostics: every error, page warning, field problem and note Shoebox reports, as data.

A :class:`Diagnostic` is a stable :class:`Code`, a :class:`Severity`, the page and field it concerns,
and parameters. Its message is rendered from the code in the reader's language (:func:`render`,
English ``en`` and Simplified Chinese ``zh``) from :data:`CATALOGUE`, the one catalogue the CLI, the
exports and the GUI share: nothing ever parses a message back. Rewording a message changes only
its catalogue entry; code that needs to know what happened tests ``diagnostic.code``. A library's own
words inside a message (MuPDF's "cannot load content stream") are for support: the Chinese message
and the plain English one (``message("en", plain=True)``, the GUI's compact places) leave them out
and :func:`library_text` gives them (see :data:`LIBRARY_TEXT_PARAMS`).

Where they live (see :mod:`desktop.core.model`):

* document errors: ``Document.error`` (one :class:`Diagnostic` or ``None``); the document's
  ``source`` names the file, so a message never starts with the file name;
* page warnings: ``PageResult.warnings``;
* field problems: ``Field.problems``;
* document notes: ``Document.notes``;
* problems of a document task: ``Document.extras["task_problems"][task]`` (as JSON objects).

JSON form (``Diagnostic.to_dict``)::

    {"code": "sum_mismatch", "severity": "warning", "message": "subtotal + tax ≠ total (...)",
     "page": null, "field": "total", "params": {"subtotal": "96.72", ...}}

``message`` is the English rendering, written for readers of the JSON; it is not read back (the code
and parameters are). A parameter may itself be a diagnostic (a page that could not be read, and
why): it is stored as such an object and rendered in the same language. Text written by older
versions (plain strings) reads back as :attr:`Code.TEXT`, rendered as the text itself.

Exit codes (``shoebox scan``) derive from the codes through one table, :data:`EXIT_CODES`, in the
manner of OCRmyPDF's ``ExitCode`` (``ocrmypdf/_exec/exceptions.py``).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Any

__all__ = [
    "CATALOGUE",
    "EXIT_CODES",
    "LANGUAGES",
    "Code",
    "Diagnostic",
    "DiagnosticError",
    "ExitCode",
    "Severity",
    "as_diagnostic",
    "diag",
    "error_text",
    "exit_code_for",
    "library_text",
    "render",
]

#: The languages messages are rendered in.
LANGUAGES = ("en", "zh")


class Severity(StrEnum):
    """How much a diagnostic matters.

    ``error``: the document (or file) could not be read. ``warning``: read, but a person should look
    (shown in the GUI and noted by the CLI on stderr). ``info``: worth showing in the GUI (a page was
    turned upright) but not on stderr. ``detail``: kept in the result and shown on hover only
    (the resolution a page was read at).
    """

    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    DETAIL = "detail"


class Code(StrEnum):
    """Stable identifiers of every diagnostic (their values are written to JSON: never rename one)."""

    TEXT = "text"  # free text, from an older version or a component not yet converted
    # -- inputs and files -------------------------------------------------------------------------
    NO_SUCH_PATH = "no_such_path"
    NOT_A_REGULAR_FILE = "not_a_regular_file"
    FILE_NOT_FOUND = "file_not_found"
    PERMISSION_DENIED = "permission_denied"
    FILE_UNREADABLE = "file_unreadable"
    IS_A_FOLDER = "is_a_folder"
    EMPTY_FILE = "empty_file"
    FILE_EMPTIED = "file_emptied"
    UNSUPPORTED_AVIF = "unsupported_avif"
    UNSUPPORTED_KIND = "unsupported_kind"
    UNSUPPORTED_TEXT_FILE = "unsupported_text_file"
    UNRECOGNISED_CONTENT = "unrecognised_content"
    HEIF_UNAVAILABLE = "heif_unavailable"
    NO_SUCH_PAGE = "no_such_page"
    PAGE_GONE = "page_gone"
    IMAGE_TOO_LARGE = "image_too_large"
    IMAGE_TOO_LARGE_SIZE = "image_too_large_size"
    IMAGE_TOO_SMALL = "image_too_small"
    IMAGE_OUT_OF_MEMORY = "image_out_of_memory"
    RENDER_OUT_OF_MEMORY = "render_out_of_memory"
    IMAGE_DAMAGED = "image_damaged"
    IMAGE_TRUNCATED = "image_truncated"
    IMAGE_VARIANT_UNSUPPORTED = "image_variant_unsupported"
    COLOUR_MODE_UNSUPPORTED = "colour_mode_unsupported"
    PDF_DAMAGED_UNOPENABLE = "pdf_damaged_unopenable"
    PDF_UNOPENABLE_DETAIL = "pdf_unopenable_detail"
    PDF_DAMAGED = "pdf_damaged"
    PDF_NOTHING_RECOVERED = "pdf_nothing_recovered"
    PDF_ENCRYPTED = "pdf_encrypted"
    PDF_NO_PAGES = "pdf_no_pages"
    PDF_PAGE_DAMAGED = "pdf_page_damaged"
    PDF_PAGE_UNRENDERABLE = "pdf_page_unrenderable"
    NO_PAGES = "no_pages"
    NOTHING_READ = "nothing_read"
    SAVED_RESULT_UNREADABLE = "saved_result_unreadable"
    # -- reading pages ----------------------------------------------------------------------------
    ANIMATED_FIRST_FRAME = "animated_first_frame"
    PDF_REPAIRED = "pdf_repaired"
    PDF_TRUNCATED = "pdf_truncated"
    TEXT_LAYER_UNDECODABLE = "text_layer_undecodable"
    DOWNSCALED = "downscaled"
    ORIENTATION_CHECK_FAILED = "orientation_check_failed"
    TURNED = "turned"
    NO_TEXT = "no_text"
    NO_TEXT_IN_DOCUMENT = "no_text_in_document"
    TASK_UNSUPPORTED = "task_unsupported"
    PAGE_NOT_READ = "page_not_read"
    PAGES_AFTER_NOT_READ = "pages_after_not_read"
    REREAD_FAILED = "reread_failed"
    TASK_PAGE_FAILED = "task_page_failed"
    ALL_PAGES_FAILED = "all_pages_failed"
    PAGE_CONTENT_LOST = "page_content_lost"  # a page warning of is_page_lost, named with its page (Document.lost_pages)
    # -- engines ----------------------------------------------------------------------------------
    ENGINE_UNAVAILABLE = "engine_unavailable"
    ENGINE_FAILED = "engine_failed"
    ENGINE_FALLBACK = "engine_fallback"
    ENGINE_NOT_SET_UP = "engine_not_set_up"
    HUNYUAN_READY = "hunyuan_ready"
    HUNYUAN_GPU_EXTRA_MISSING = "hunyuan_gpu_extra_missing"
    HUNYUAN_TRANSFORMERS_TOO_OLD = "hunyuan_transformers_too_old"
    HUNYUAN_NO_MODEL_FOLDER = "hunyuan_no_model_folder"
    HUNYUAN_NO_CUDA = "hunyuan_no_cuda"
    HUNYUAN_CPU_ONLY_TORCH = "hunyuan_cpu_only_torch"
    HUNYUAN_PROBLEMS = "hunyuan_problems"
    MODEL_PLACE_NOT_SET = "model_place_not_set"
    MODEL_PLACE_NO_FOLDER = "model_place_no_folder"
    MODEL_PLACE_INCOMPLETE = "model_place_incomplete"
    # what a model folder lacks (the items of MODEL_PLACE_INCOMPLETE's ``missing``)
    MODEL_FOLDER_ABSENT = "model_folder_absent"
    MODEL_MISSING_CONFIG = "model_missing_config"
    MODEL_MISSING_PREPROCESSOR = "model_missing_preprocessor"
    MODEL_MISSING_TOKENIZER = "model_missing_tokenizer"
    MODEL_MISSING_WEIGHTS = "model_missing_weights"
    MODEL_MISSING_SHARDS = "model_missing_shards"
    MODEL_INDEX_UNREADABLE = "model_index_unreadable"
    MODEL_MISSING_SHARDS_MORE = "model_missing_shards_more"
    ENGINE_CRASHED = "engine_crashed"
    # how a worker process ended (the ``detail`` of ENGINE_CRASHED and EINVOICE_STOPPED;
    # desktop.core.isolation.process.describe_exit)
    WORKER_KILLED = "worker_killed"
    WORKER_ABORTED = "worker_aborted"
    WORKER_SEGFAULT = "worker_segfault"
    WORKER_SIGNAL = "worker_signal"
    WORKER_EXIT_CODE = "worker_exit_code"
    WORKER_UNRESPONSIVE = "worker_unresponsive"
    WORKER_ANSWER_LOST = "worker_answer_lost"
    WORKER_OVERRAN = "worker_overran"
    WORKER_LAST_WORDS = "worker_last_words"
    READER_STOPPED = "reader_stopped"
    READER_OVERRAN = "reader_overran"
    ENGINE_TIMED_OUT = "engine_timed_out"
    ENGINE_NOTE = "engine_note"
    READING_SUSPECT = "reading_suspect"
    # what HunyuanOCR (in this process or on the office server) says about one reading
    # (desktop.core.engines.hunyuan_output; shown inside ENGINE_NOTE)
    HUNYUAN_REPEATED = "hunyuan_repeated"
    HUNYUAN_CUT_AT_LIMIT = "hunyuan_cut_at_limit"
    HUNYUAN_CUT = "hunyuan_cut"
    HUNYUAN_REDUCED_RESOLUTION = "hunyuan_reduced_resolution"
    HUNYUAN_NO_FIELD_JSON = "hunyuan_no_field_json"
    HUNYUAN_VALUE_CUT = "hunyuan_value_cut"
    HUNYUAN_EXTRA_FIELDS = "hunyuan_extra_fields"
    FIELD_VALUES_INCOMPLETE = "field_values_incomplete"
    MODEL_FIELDS_FAILED = "model_fields_failed"
    MODEL_NO_FIELDS = "model_no_fields"
    OUT_OF_MEMORY = "out_of_memory"
    FIELDS_FAILED = "fields_failed"
    UNEXPECTED = "unexpected"
    EXCEPTION = "exception"
    # -- the office server (desktop.core.engines.server) ------------------------------------------
    SERVER_NOT_CONFIGURED = "server_not_configured"
    SERVER_BAD_URL = "server_bad_url"
    SERVER_PUBLIC = "server_public"
    SERVER_NAME_UNRESOLVED = "server_name_unresolved"
    SERVER_UNREACHABLE = "server_unreachable"
    SERVER_BUSY = "server_busy"
    SERVER_KEY_REFUSED = "server_key_refused"
    SERVER_HTTP_ERROR = "server_http_error"
    SERVER_NO_MODEL = "server_no_model"
    SERVER_MODEL_MISSING = "server_model_missing"
    SERVER_NO_FIELD_TASK = "server_no_field_task"
    SERVER_NO_TASK = "server_no_task"
    SERVER_CLOSED = "server_closed"
    SERVER_FALLBACK = "server_fallback"
    SERVER_DOWN_CPU = "server_down_cpu"
    SERVER_NOT_USED = "server_not_used"
    SERVICE_TIME_LIMIT = "service_time_limit"  # shoebox serve (desktop.service)
    # -- field problems ---------------------------------------------------------------------------
    NO_AMOUNT = "no_amount"
    NO_DATE = "no_date"
    NO_TIME = "no_time"
    IMPOSSIBLE_DATE = "impossible_date"
    IMPOSSIBLE_MONTH = "impossible_month"
    IMPOSSIBLE_DAY = "impossible_day"
    AMBIGUOUS_DATE_ORDER = "ambiguous_date_order"
    AMOUNT_GROUPING_AMBIGUOUS = "amount_grouping_ambiguous"
    CURRENCY_UNCOMMON = "currency_uncommon"
    CURRENCY_UNKNOWN = "currency_unknown"
    CURRENCY_NOT_ISO = "currency_not_iso"
    CURRENCY_INFERRED = "currency_inferred"
    CURRENCY_SIGN_CONFLICT = "currency_sign_conflict"
    CURRENCY_AMBIGUOUS_SIGN = "currency_ambiguous_sign"  # "$" alone, and nothing on the page says which dollar
    NEGATIVE_AMOUNT = "negative_amount"
    NOT_AN_AMOUNT = "not_an_amount"
    NOT_AN_ADDRESS = "not_an_address"
    # a page holds two documents side by side (desktop.core.extraction.side_by_side): a field problem and a note
    PAGE_HOLDS_TWO_DOCUMENTS = "page_holds_two_documents"
    PAGES_NOT_READ_AFTER = "pages_not_read_after"  # the page numbers printed say pages after the last read exist
    PAGES_NOT_READ_BEFORE = "pages_not_read_before"  # ... and pages before the first read
    # a page of the document lost content (desktop.core.diagnostics.is_page_lost) or its PDF is cut short
    READ_FROM_LOST_PAGE = "read_from_lost_page"  # the value was read from such a page
    LAST_PAGE_LOST = "last_page_lost"  # a totals field, when the last page read is such a page
    FIRST_PAGE_LOST = "first_page_lost"  # a header field, when the first page read is such a page
    PAGES_CUT_OFF_AFTER = "pages_cut_off_after"  # a totals field of a PDF cut short: pages after may be missing
    NOT_FOUND_PART_LOST = "not_found_part_lost"  # an expected field left empty when part of the document was lost
    DATE_NOT_ISO = "date_not_iso"
    TAX_ID_BAD_CHARACTER = "tax_id_bad_character"
    TAX_ID_CHECK_CHARACTER = "tax_id_check_character"
    TAX_ID_CHECK_DIGITS = "tax_id_check_digits"
    TAX_ID_LENGTH = "tax_id_length"
    TAX_ID_UNKNOWN_FORMAT = "tax_id_unknown_format"
    IBAN_INVALID = "iban_invalid"
    INVOICE_CODE_NOT_DIGITS = "invoice_code_not_digits"
    INVOICE_CODE_LENGTH = "invoice_code_length"
    INVOICE_CODE_REGION = "invoice_code_region"
    INVOICE_NUMBER_NOT_DIGITS = "invoice_number_not_digits"
    INVOICE_NUMBER_DIGITAL_WITH_CODE = "invoice_number_digital_with_code"
    INVOICE_NUMBER_LENGTH = "invoice_number_length"
    CHECK_CODE_LENGTH = "check_code_length"
    SUM_MISMATCH = "sum_mismatch"
    SUBTOTAL_TOTAL_NO_TAX = "subtotal_total_no_tax"
    NET_NOT_PRINTED = "net_not_printed"
    AMOUNT_DUE_UNEXPLAINED = "amount_due_unexplained"
    QR_MISMATCH = "qr_mismatch"
    AMOUNT_IN_WORDS_MISMATCH = "amount_in_words_mismatch"
    EINVOICE_MISMATCH = "einvoice_mismatch"
    EINVOICE_NOT_PRINTED = "einvoice_not_printed"
    EINVOICE_UNREADABLE = "einvoice_unreadable"
    EINVOICE_STOPPED = "einvoice_stopped"
    # -- the vendor memory and duplicates (desktop.core.memory, desktop.core.duplicates) -------------
    MEMORY_CONFLICT = "memory_conflict"
    MEMORY_REPLACED = "memory_replaced"
    MEMORY_REPAIRED = "memory_repaired"
    MEMORY_UNAVAILABLE = "memory_unavailable"
    MEMORY_PAGE_READS = "memory_page_reads"
    DUPLICATE_SAME_FILE = "duplicate_same_file"
    DUPLICATE_SAME_NUMBER = "duplicate_same_number"
    DUPLICATE_SAME_DATE_TOTAL = "duplicate_same_date_total"
    DUPLICATE_SAME_FIGURES = "duplicate_same_figures"
    DUPLICATE_SAME_NUMBER_DATE_TOTAL = "duplicate_same_number_date_total"
    # -- the clerk's operations that cannot be done (desktop.core.review, boundaries, memory) ----------
    REVIEW_NOT_READ_YET = "review_not_read_yet"
    REVIEW_NOT_READ = "review_not_read"
    REVIEW_NOT_DUPLICATE = "review_not_duplicate"
    SPLIT_OUTSIDE = "split_outside"
    SPLIT_NOT_READ = "split_not_read"
    MERGE_OTHER_FILES = "merge_other_files"
    MERGE_NOT_ADJACENT = "merge_not_adjacent"
    VENDOR_NO_FIELD = "vendor_no_field"
    VENDOR_NOT_FOUND = "vendor_not_found"
    VENDOR_NEEDS_NAME = "vendor_needs_name"
    VENDOR_MERGE_SELF = "vendor_merge_self"
    VENDOR_NOT_STORED = "vendor_not_stored"
    VENDOR_LIST_NOT_JSON = "vendor_list_not_json"
    VENDOR_LIST_UNREADABLE = "vendor_list_unreadable"
    VENDOR_LIST_FORMAT = "vendor_list_format"
    VENDOR_LIST_NEWER = "vendor_list_newer"
    VENDOR_LIST_NO_VENDORS = "vendor_list_no_vendors"
    VENDOR_LIST_BAD_VENDOR = "vendor_list_bad_vendor"
    VENDOR_LIST_BAD_DOCUMENT = "vendor_list_bad_document"
    POSSIBLE_DUPLICATE = "possible_duplicate"
    FIELD_REVIEWED = "field_reviewed"
    # why a field is flagged when no check failed on it (desktop.core.flags.flag_diagnostics)
    FIELD_EMPTY_KEY = "field_empty_key"
    FIELD_NOT_FOUND = "field_not_found"
    FIELD_LOW_CONFIDENCE = "field_low_confidence"  # confidence below the field's review threshold (both given)
    FIELD_ALWAYS_CHECKED = "field_always_checked"  # a field whose threshold is above 100 %: no confidence passes
    FIELD_NOT_SURE = "field_not_sure"  # flagged as read, with no threshold it is below (or none recorded)
    EINVOICE_QR_MISMATCH = "einvoice_qr_mismatch"
    XML_NOT_AN_INVOICE = "xml_not_an_invoice"
    XML_INVOICE_UNREADABLE = "xml_invoice_unreadable"
    OFD_UNREADABLE = "ofd_unreadable"
    OFD_IMAGE_NOT_SHOWN = "ofd_image_not_shown"
    OFD_IMAGE_MISSING = "ofd_image_missing"
    OFD_OBJECT_NOT_DRAWN = "ofd_object_not_drawn"
    OFD_PAGES_CUT = "ofd_pages_cut"
    POSITIVE_ON_CREDIT_NOTE = "positive_on_credit_note"
    SUBTOTAL_AS_TOTAL = "subtotal_as_total"
    TOTAL_INCLUDES_CASH_BACK = "total_includes_cash_back"
    # -- hostile inputs -----------------------------------------------------------------------------
    SYMLINK_LOOP = "symlink_loop"
    FOLDER_LINK_LOOP = "folder_link_loop"
    BROKEN_LINK = "broken_link"
    SPECIAL_FILE = "special_file"
    FOLDER_UNREADABLE = "folder_unreadable"
    FILES_SKIPPED = "files_skipped"
    GIVEN_REPEATEDLY = "given_repeatedly"
    GIVEN_REPEATEDLY_AS = "given_repeatedly_as"
    PDF_CONTENT_LOST = "pdf_content_lost"
    PDF_PAGE_CONTENT_GONE = "pdf_page_content_gone"
    READ_ZOOMED = "read_zoomed"
    READ_IN_TILES = "read_in_tiles"
    # -- which pages make a document ----------------------------------------------------------------
    PAGES_SPLIT_OWN_NUMBER = "pages_split_own_number"
    PAGES_SPLIT_OWN_START = "pages_split_own_start"
    PAGES_SPLIT_KIND = "pages_split_kind"
    PAGES_SPLIT_AFTER = "pages_split_after"
    # no longer produced (a page that lost its content now stays with its document); kept so that
    # results saved before still read and render in full
    PAGES_SPLIT_CONTENT_LOST = "pages_split_content_lost"
    PAGES_SPLIT_AFTER_CONTENT_LOST = "pages_split_after_content_lost"
    PAGES_JOINED_SAME_NUMBER = "pages_joined_same_number"
    PAGES_JOINED_CONTINUATION = "pages_joined_continuation"
    PAGES_JOINED_NO_TOTAL_YET = "pages_joined_no_total_yet"
    PAGES_JOINED_CONTENT_LOST = "pages_joined_content_lost"
    PAGES_JOINED_NOTHING_READ_BEFORE = "pages_joined_nothing_read_before"
    PAGES_JOINED_EINVOICE = "pages_joined_einvoice"
    PAGE_BOUNDARIES_FAILED = "page_boundaries_failed"
    CLERK_SPLIT = "clerk_split"
    CLERK_MERGED = "clerk_merged"
    # -- writing an export (desktop.core.export.ExportError) --------------------------------------------
    EXPORT_UNKNOWN_TYPE = "export_unknown_type"
    EXPORT_NO_SUFFIX = "export_no_suffix"
    EXPORT_IS_FOLDER = "export_is_folder"
    EXPORT_NO_FOLDER = "export_no_folder"
    EXPORT_NOT_A_FOLDER = "export_not_a_folder"
    EXPORT_FOLDER_REFUSES = "export_folder_refuses"
    EXPORT_PERMISSION = "export_permission"
    EXPORT_FILE_OPEN = "export_file_open"
    EXPORT_DISK_FULL = "export_disk_full"
    EXPORT_DISK_FULL_FREE = "export_disk_full_free"
    EXPORT_QUOTA = "export_quota"
    EXPORT_READ_ONLY = "export_read_only"
    EXPORT_NAME_TOO_LONG = "export_name_too_long"
    EXPORT_OS_ERROR = "export_os_error"
    EXPORT_WRITER_FAILED = "export_writer_failed"
    # -- the session ----------------------------------------------------------------------------------
    SESSION_KEPT_ASIDE = "session_kept_aside"
    SESSION_UNSAVED = "session_unsaved"
    SESSION_NEWER = "session_newer"
    # -- the command line ---------------------------------------------------------------------------
    INTERRUPTED_WRITING = "interrupted_writing"
    THROUGHPUT = "throughput"
    THROUGHPUT_START = "throughput_start"
    THROUGHPUT_ONE = "throughput_one"
    USAGE = "usage"
    OUTPUT_FAILED = "output_failed"
    INTERRUPTED = "interrupted"


@dataclass(frozen=True)
class Entry:
    """A catalogue entry: the default severity and the message templates (``str.format`` fields)."""

    severity: Severity
    en: str
    zh: str


_E, _W, _I, _D = Severity.ERROR, Severity.WARNING, Severity.INFO, Severity.DETAIL
_READABLE_EN = "Shoebox reads JPEG, PNG, TIFF, BMP, WebP, HEIC, PDF and OFD files and XML e-invoices"
_READABLE_ZH = "Shoebox 可读取 JPEG、PNG、TIFF、BMP、WebP、HEIC、PDF、OFD 文件和 XML 电子发票"

#: Every code's severity and messages. ``{name}`` fields are the diagnostic's parameters
#: (``{name!r}`` quotes the value in English; the Chinese templates quote with “”).
CATALOGUE: dict[Code, Entry] = {
    Code.TEXT: Entry(_W, "{text}", "{text}"),
    Code.NO_SUCH_PATH: Entry(_E, "no such file or folder", "没有这个文件或文件夹"),
    Code.NOT_A_REGULAR_FILE: Entry(_E, "not a regular file or folder", "不是普通文件或文件夹"),
    Code.FILE_NOT_FOUND: Entry(_E, "file not found", "找不到文件"),
    Code.PERMISSION_DENIED: Entry(_E, "the file cannot be read (permission denied)", "无法读取文件（没有权限）"),
    Code.FILE_UNREADABLE: Entry(_E, "the file cannot be read ({detail})", "无法读取文件（{detail}）"),
    Code.IS_A_FOLDER: Entry(_E, "this is a folder, not a file", "这是文件夹，不是文件"),
    Code.EMPTY_FILE: Entry(_E, "the file is empty (0 bytes)", "文件是空的（0 字节）"),
    Code.FILE_EMPTIED: Entry(_E, "the file has been emptied since it was opened", "文件在打开后被清空了"),
    Code.UNSUPPORTED_AVIF: Entry(_E, f"AVIF images are not supported; {_READABLE_EN}",
                                 f"不支持 AVIF 图像；{_READABLE_ZH}"),
    Code.UNSUPPORTED_KIND: Entry(_E, f"this is {{kind}}, not a supported image or PDF; {_READABLE_EN}",
                                 f"这是{{kind}}，不是支持的图像或 PDF；{_READABLE_ZH}"),
    Code.UNSUPPORTED_TEXT_FILE: Entry(_E, f"this is a text file, not an image or PDF; {_READABLE_EN}",
                                      f"这是文本文件，不是图像或 PDF；{_READABLE_ZH}"),
    Code.UNRECOGNISED_CONTENT: Entry(
        _E, "the file's contents are not a recognised image or PDF (it may be damaged, or of a kind "
            f"Shoebox cannot read); {_READABLE_EN}",
        f"文件内容不是可识别的图像或 PDF（可能已损坏，或是 Shoebox 无法读取的类型）；{_READABLE_ZH}"),
    Code.HEIF_UNAVAILABLE: Entry(_E, "HEIC/HEIF images need the pillow-heif package, which is not installed",
                                 "读取 HEIC/HEIF 图像需要 pillow-heif 软件包，但它没有安装"),
    Code.NO_SUCH_PAGE: Entry(_E, "there is no page {number}: the file has only {pages}",
                             "没有第 {number} 页：文件只有 {pages} 页"),
    Code.PAGE_GONE: Entry(_E, "page {page} no longer exists in the file", "文件中已不存在第 {page} 页"),
    Code.IMAGE_TOO_LARGE: Entry(
        _E, "the image is larger than Shoebox opens (more than {limit} megapixels): scan it at a lower "
            "resolution (300 dpi is plenty for reading)",
        "图像超出 Shoebox 可打开的大小（超过 {limit} 百万像素）：请以较低的分辨率重新扫描（每英寸 300 点即足以识别）"),
    Code.IMAGE_TOO_LARGE_SIZE: Entry(
        _E, "the image is larger than Shoebox opens ({width} x {height} = {megapixels} megapixels; the limit "
            "is {limit}): scan it at a lower resolution (300 dpi is plenty for reading)",
        "图像超出 Shoebox 可打开的大小（{width} x {height} = {megapixels} 百万像素；上限为 {limit} 百万像素）："
        "请以较低的分辨率重新扫描（每英寸 300 点即足以识别）"),
    Code.IMAGE_TOO_SMALL: Entry(
        _E, "the image is {width} x {height} pixels: too small to hold readable text (Shoebox reads images of at "
            "least {minimum} pixels on each side); scan or photograph the document again",
        "图像只有 {width} x {height} 像素：太小，无法容纳可识别的文字（Shoebox 读取每边至少 {minimum} 像素的图像）；"
        "请重新扫描或拍摄该单据"),
    Code.IMAGE_OUT_OF_MEMORY: Entry(_E, "there is not enough memory to open this image", "内存不足，无法打开此图像"),
    Code.RENDER_OUT_OF_MEMORY: Entry(_E, "there is not enough memory to render page {page}",
                                     "内存不足，无法渲染第 {page} 页"),
    Code.IMAGE_TRUNCATED: Entry(_E, "the image file is cut short (it stops before its end, as after an interrupted "
                                    "download or copy): part of the picture is missing; use the original file",
                                "图像文件不完整（在结尾之前就中断了，例如下载或复制被中断）：缺少部分图像；请使用原始文件"),
    Code.IMAGE_DAMAGED: Entry(_E, "the file is damaged or not a complete image ({detail})",
                              "文件已损坏或不是完整的图像（{detail}）"),
    Code.IMAGE_VARIANT_UNSUPPORTED: Entry(_E, "the image uses a variant Shoebox cannot decode ({detail})",
                                          "图像使用了 Shoebox 无法解码的变体（{detail}）"),
    Code.COLOUR_MODE_UNSUPPORTED: Entry(_E, "the image uses a colour mode Shoebox cannot convert ({mode}: {detail})",
                                        "图像使用了 Shoebox 无法转换的颜色模式（{mode}：{detail}）"),
    Code.PDF_DAMAGED_UNOPENABLE: Entry(_E, "the PDF is damaged and cannot be opened", "PDF 已损坏，无法打开"),
    Code.PDF_UNOPENABLE_DETAIL: Entry(_E, "the PDF is damaged and cannot be opened ({detail})",
                                      "PDF 已损坏，无法打开（{detail}）"),
    Code.PDF_DAMAGED: Entry(_E, "the PDF is damaged ({detail})", "PDF 已损坏（{detail}）"),
    Code.PDF_NOTHING_RECOVERED: Entry(_E, "the PDF is damaged and no page could be recovered",
                                      "PDF 已损坏，没有能恢复的页面"),
    Code.PDF_ENCRYPTED: Entry(_E, "the PDF is password-protected", "PDF 受密码保护"),
    Code.PDF_NO_PAGES: Entry(_E, "the PDF has no pages", "PDF 没有页面"),
    Code.PDF_PAGE_DAMAGED: Entry(_E, "page {page} of the PDF is damaged ({detail})", "PDF 第 {page} 页已损坏（{detail}）"),
    Code.PDF_PAGE_UNRENDERABLE: Entry(_E, "page {page} of the PDF cannot be rendered ({detail})",
                                      "PDF 第 {page} 页无法渲染（{detail}）"),
    Code.NO_PAGES: Entry(_E, "no pages found", "没有找到页面"),
    Code.NOTHING_READ: Entry(_E, "nothing was read", "什么也没有读到"),
    Code.SAVED_RESULT_UNREADABLE: Entry(_E, "the saved result could not be read back ({detail})",
                                        "保存的结果无法读回（{detail}）"),
    Code.ANIMATED_FIRST_FRAME: Entry(_I, "animated image: only the first frame is read", "动画图像：只读取第一帧"),
    Code.PDF_TRUNCATED: Entry(_W, "the PDF file is cut short (it stops before its end-of-file marker, as after an "
                                  "interrupted download or copy) and was repaired: pages or parts of pages may be "
                                  "missing; check what was read against the original",
                              "PDF 文件不完整（在文件结束标记之前就中断了，例如下载或复制被中断），已修复：可能缺少页面或"
                              "部分内容；请对照原件核对读取的内容"),
    Code.PDF_REPAIRED: Entry(_W, "the PDF was damaged and has been repaired; check what was read",
                             "PDF 已损坏并已修复；请核对读取的内容"),
    Code.TEXT_LAYER_UNDECODABLE: Entry(
        _I, "the PDF text layer cannot be decoded (fonts without a character map); the page is read by OCR instead",
        "PDF 文字层无法解码（字体没有字符映射）；改为用 OCR 识别此页"),
    Code.DOWNSCALED: Entry(_D, "read at {width}x{height} px (downscaled from {page_width}x{page_height})",
                           "以 {width}x{height} 像素识别（由 {page_width}x{page_height} 缩小）"),
    Code.ORIENTATION_CHECK_FAILED: Entry(_I, "orientation check failed ({reason}); read as scanned",
                                         "无法判断页面方向（{reason}）；按扫描方向识别"),
    Code.TURNED: Entry(_I, "turned {degrees}° clockwise to read it upright",
                       "已顺时针旋转 {degrees}° 以便正向识别"),
    Code.NO_TEXT: Entry(_W, "no text was found on this page (blank, or the print is too faint to read)",
                        "此页没有找到文字（空白页，或字迹太淡无法识别）"),
    Code.NO_TEXT_IN_DOCUMENT: Entry(
        _W, "no text was found on any of its {pages} page(s): no document type was guessed and no field was "
            "read; check the scan (a blank sheet, a page scanned face down, or print too faint to read)",
        "其 {pages} 页均未找到文字：未猜测单据类型，也未读取任何字段；请检查扫描件（空白纸、扫描时放反，或字迹太淡无法识别）"),
    Code.TASK_UNSUPPORTED: Entry(_W, "the {engine} engine cannot do the task {task!r}",
                                 "{engine} 引擎不能执行任务“{task}”"),
    Code.PAGE_NOT_READ: Entry(_W, "page {page} could not be read: {reason}", "第 {page} 页无法读取：{reason}"),
    Code.PAGES_AFTER_NOT_READ: Entry(_W, "pages after {page} could not be read: {reason}",
                                     "第 {page} 页之后的页面无法读取：{reason}"),
    Code.REREAD_FAILED: Entry(_W, "reading again failed: {reason}", "重新识别失败：{reason}"),
    Code.PAGE_CONTENT_LOST: Entry(_W, "page {page}: {warning}", "第 {page} 页：{warning}"),
    Code.TASK_PAGE_FAILED: Entry(_W, "page {page}: {reason}", "第 {page} 页：{reason}"),
    Code.ALL_PAGES_FAILED: Entry(_E, "{reason} (and {more} more page failures)", "{reason}（另有 {more} 页失败）"),
    Code.ENGINE_UNAVAILABLE: Entry(_E, "the engine is unavailable: {detail}", "引擎不可用：{detail}"),
    Code.ENGINE_FAILED: Entry(_E, "{detail}", "{detail}"),
    Code.ENGINE_CRASHED: Entry(_E, "the engine stopped unexpectedly while reading page {page} ({detail})",
                               "读取第 {page} 页时识别引擎意外停止（{detail}）"),
    Code.WORKER_KILLED: Entry(_D, "killed by SIGKILL, as when the computer runs out of memory",
                              "进程被 SIGKILL 强行终止，通常是因为电脑内存不足"),
    Code.WORKER_ABORTED: Entry(_D, "aborted: SIGABRT", "进程异常中止：SIGABRT"),
    Code.WORKER_SEGFAULT: Entry(_D, "crashed: SIGSEGV", "进程崩溃：SIGSEGV"),
    Code.WORKER_SIGNAL: Entry(_D, "ended by {signal}", "进程被信号 {signal} 终止"),
    Code.WORKER_EXIT_CODE: Entry(_D, "exit code {exitcode}", "进程退出，退出码 {exitcode}"),
    Code.WORKER_UNRESPONSIVE: Entry(_D, "it stopped responding", "进程停止响应"),
    Code.WORKER_ANSWER_LOST: Entry(_D, "its answer broke off: {detail}", "进程的回答中断：{detail}"),
    Code.WORKER_OVERRAN: Entry(_D, "it took longer than {seconds} s", "用时超过 {seconds} 秒"),
    Code.WORKER_LAST_WORDS: Entry(_D, "{how}; its last words on stderr: {problem}", "{how}；它最后输出的错误信息：{problem}"),
    Code.READER_STOPPED: Entry(_E, "the file reader stopped unexpectedly ({detail}): the file may be damaged or malicious",
                               "文件读取进程意外停止（{detail}）：文件可能已损坏或含有恶意内容"),
    Code.READER_OVERRAN: Entry(_E, "opening the file took longer than {seconds} s and was stopped",
                               "打开文件超过 {seconds} 秒，已被停止"),
    Code.ENGINE_TIMED_OUT: Entry(_E, "reading page {page} took longer than {seconds} s and was stopped",
                                 "第 {page} 页读取超过 {seconds} 秒，已被停止"),
    Code.ENGINE_NOTE: Entry(_W, "{detail}", "识别引擎提示：{detail}"),
    Code.READING_SUSPECT: Entry(_W, "the {engine} engine marked its reading of this page as doubtful: check this page",
                                "{engine} 引擎认为此页的识别结果可疑：请检查此页"),
    Code.HUNYUAN_REPEATED: Entry(_W, "HunyuanOCR repeated itself; the repeated text was cut off: check this page",
                                 "HunyuanOCR 的输出出现了重复，重复的文字已截去：请检查此页"),
    Code.HUNYUAN_CUT_AT_LIMIT: Entry(_W, "HunyuanOCR answer cut at the length limit ({tokens} tokens): the end of the "
                                         "page may be missing",
                                     "HunyuanOCR 的回答达到长度上限（{tokens} 个词元）被截断：页面末尾可能缺失"),
    Code.HUNYUAN_CUT: Entry(_W, "HunyuanOCR answer cut at the length limit: the end of the page may be missing",
                            "HunyuanOCR 的回答达到长度上限被截断：页面末尾可能缺失"),
    Code.HUNYUAN_REDUCED_RESOLUTION: Entry(_W, "GPU out of memory: page read at reduced resolution ({pixels} pixels)",
                                           "显卡内存不足：此页以较低的分辨率识别（{pixels} 像素）"),
    Code.HUNYUAN_NO_FIELD_JSON: Entry(_W, "HunyuanOCR gave no usable JSON for the fields",
                                      "HunyuanOCR 没有给出可用的字段 JSON"),
    Code.HUNYUAN_VALUE_CUT: Entry(_W, "HunyuanOCR answer was cut short; the incomplete value of {key!r} was dropped",
                                  "HunyuanOCR 的回答被截断；不完整的“{key}”值已舍弃"),
    Code.HUNYUAN_EXTRA_FIELDS: Entry(_W, "HunyuanOCR returned fields that were not asked for (ignored): {fields}",
                                     "HunyuanOCR 返回了未要求的字段（已忽略）：{fields}"),
    Code.FIELD_VALUES_INCOMPLETE: Entry(_W, "field values may be incomplete (the answer was cut short)",
                                        "字段值可能不完整（回答被截断）"),
    Code.ENGINE_FALLBACK: Entry(_I, "HunyuanOCR not used: {reason}. Using PP-OCR on the CPU.",
                                "未使用 HunyuanOCR：{reason}。改用 CPU 上的 PP-OCR。"),
    Code.ENGINE_NOT_SET_UP: Entry(_I, "HunyuanOCR is not set up on this computer; using PP-OCR on the CPU.",
                                  "此电脑上没有设置 HunyuanOCR；使用 CPU 上的 PP-OCR。"),
    # why HunyuanOCR cannot run here (desktop.core.engines.hunyuan_models.availability); each reads as a
    # clause of ENGINE_FALLBACK's "HunyuanOCR not used: {reason}"
    Code.HUNYUAN_READY: Entry(_D, "HunyuanOCR model in {folder}", "HunyuanOCR 模型位于 {folder}"),
    Code.HUNYUAN_GPU_EXTRA_MISSING: Entry(
        _I, "the optional [gpu] extra is not installed ({missing} missing; install with: pip install \"shoebox[gpu]\")",
        "没有安装可选的 [gpu] 组件（缺少 {missing}；安装命令：pip install \"shoebox[gpu]\"）"),
    Code.HUNYUAN_TRANSFORMERS_TOO_OLD: Entry(
        _I, "transformers {version} is too old for HunyuanOCR (needs {needed} or newer)",
        "transformers {version} 版本太旧，无法运行 HunyuanOCR（需要 {needed} 或更新版本）"),
    Code.HUNYUAN_NO_MODEL_FOLDER: Entry(
        _I, "no complete HunyuanOCR model folder found (looked in: {places}). Copy the tencent/HunyuanOCR files "
            "(config.json, preprocessor_config.json, tokenizer files, *.safetensors) into one of these folders or "
            "choose the folder in Settings",
        "没有找到完整的 HunyuanOCR 模型文件夹（查找了：{places}）。请把 tencent/HunyuanOCR 的文件（config.json、"
        "preprocessor_config.json、分词器文件、*.safetensors）复制到其中一个文件夹，或在设置中选择文件夹"),
    Code.MODEL_PLACE_NOT_SET: Entry(_D, "{where}: not set", "{where}：未设置"),
    Code.MODEL_PLACE_NO_FOLDER: Entry(_D, "{where} {path}: does not exist", "{where} {path}：不存在"),
    Code.MODEL_PLACE_INCOMPLETE: Entry(_D, "{where} {path}: missing {missing}", "{where} {path}：缺少 {missing}"),
    Code.MODEL_FOLDER_ABSENT: Entry(_D, "the folder does not exist", "文件夹不存在"),
    Code.MODEL_MISSING_CONFIG: Entry(_D, "config.json", "config.json 文件"),
    Code.MODEL_MISSING_PREPROCESSOR: Entry(_D, "preprocessor_config.json", "preprocessor_config.json 文件"),
    Code.MODEL_MISSING_TOKENIZER: Entry(_D, "tokenizer files (tokenizer_config.json and tokenizer.json)",
                                        "分词器文件（tokenizer_config.json 和 tokenizer.json）"),
    Code.MODEL_MISSING_WEIGHTS: Entry(_D, "weights (model.safetensors or model.safetensors.index.json with its shards)",
                                      "权重文件（model.safetensors，或 model.safetensors.index.json 及其分片文件）"),
    Code.MODEL_MISSING_SHARDS: Entry(_D, "weights ({shards})", "权重文件（{shards}）"),
    Code.MODEL_INDEX_UNREADABLE: Entry(_D, "a readable model.safetensors.index.json ({detail})",
                                       "可读取的 model.safetensors.index.json（{detail}）"),
    Code.MODEL_MISSING_SHARDS_MORE: Entry(_D, "weights ({shards} and {more} more)", "权重文件（{shards} 等，另有 {more} 个）"),
    Code.HUNYUAN_NO_CUDA: Entry(_I, "no CUDA GPU available (torch {torch}, CUDA {cuda})",
                                "没有可用的 CUDA 显卡（torch {torch}，CUDA {cuda}）"),
    Code.HUNYUAN_CPU_ONLY_TORCH: Entry(_I, "no CUDA GPU available (torch {torch}, a CPU-only build)",
                                       "没有可用的 CUDA 显卡（torch {torch} 是仅支持 CPU 的版本）"),
    Code.HUNYUAN_PROBLEMS: Entry(_I, "{first}; also, {second}", "{first}；另外，{second}"),
    Code.MODEL_FIELDS_FAILED: Entry(_W, "the AI model ({engine}) could not read the fields of page {page} ({reason}); "
                                        "they were read from the page text instead",
                                    "AI 模型未能读取第 {page} 页的字段（{reason}）；已改为从页面文字读取"),
    Code.MODEL_NO_FIELDS: Entry(_W, "the AI model ({engine}) gave no fields; they were read from the page text instead",
                                "AI 模型没有给出字段；已改为从页面文字读取"),
    Code.OUT_OF_MEMORY: Entry(_E, "out of memory (the page is too large for this computer)",
                              "内存不足（页面对这台电脑来说太大）"),
    Code.FIELDS_FAILED: Entry(_E, "reading the fields failed: {reason}", "读取字段失败：{reason}"),
    Code.UNEXPECTED: Entry(_E, "unexpected error: {detail}", "意外错误：{detail}"),
    Code.EXCEPTION: Entry(_E, "{detail}", "{detail}"),
    Code.SERVER_NOT_CONFIGURED: Entry(
        _E, "no office server is configured: give --server-url, set SHOEBOX_SERVER_URL, or enter the server's "
            "address in Settings",
        "没有设置办公室服务器：请使用 --server-url、设置 SHOEBOX_SERVER_URL，或在“设置”中填写服务器地址"),
    Code.SERVER_BAD_URL: Entry(_E, "{url}: {problem}", "服务器地址 {url} 无效：{problem}"),
    Code.SERVER_PUBLIC: Entry(
        _E, "{url}: {host} is not a loopback or private-network address; documents would leave the office "
            "network. Tick \"Allow a server outside the office network\" in Settings (or pass "
            "--allow-public-server) if this is intended",
        "{url}：{host} 不是本机或内网地址，文件将离开办公室网络。如确实需要，请在“设置”中勾选"
        "“允许办公室网络以外的服务器”（或使用 --allow-public-server）"),
    Code.SERVER_NAME_UNRESOLVED: Entry(_E, "the office server at {url} could not be reached: the name {host} does "
                                           "not resolve ({detail})",
                                       "无法连接办公室服务器 {url}：无法解析主机名 {host}（{detail}）"),
    Code.SERVER_UNREACHABLE: Entry(_E, "the office server at {url} could not be reached: {detail}",
                                   "无法连接办公室服务器 {url}：{detail}"),
    Code.SERVER_BUSY: Entry(_E, "the office server at {url} stayed busy for {seconds} s (HTTP {status}); page not read",
                            "办公室服务器 {url} 持续繁忙 {seconds} 秒（HTTP {status}）；此页未识别"),
    Code.SERVER_KEY_REFUSED: Entry(_E, "the office server at {url} refused the API key (HTTP {status}); check the "
                                       "key in Settings",
                                   "办公室服务器 {url} 拒绝了 API 密钥（HTTP {status}）；请在“设置”中检查密钥"),
    Code.SERVER_HTTP_ERROR: Entry(_E, "the office server at {url} answered HTTP {status}: {detail}",
                                  "办公室服务器 {url} 返回 HTTP {status}：{detail}"),
    Code.SERVER_NO_MODEL: Entry(_E, "the office server at {url} serves no model", "办公室服务器 {url} 没有提供任何模型"),
    Code.SERVER_MODEL_MISSING: Entry(_E, "the office server at {url} does not serve {model!r} (it serves: {models})",
                                     "办公室服务器 {url} 没有提供“{model}”（它提供：{models}）"),
    Code.SERVER_NO_FIELD_TASK: Entry(_W, "{model} (HunyuanOCR {version}) has no field-extraction task; fields are "
                                         "read from the text instead",
                                     "{model}（HunyuanOCR {version}）没有字段提取任务；改为从文字中读取字段"),
    Code.SERVER_NO_TASK: Entry(_E, "the office server has no task {task!r}; choose one of {tasks}",
                               "办公室服务器没有任务“{task}”；可选：{tasks}"),
    Code.SERVER_CLOSED: Entry(_E, "the connection to the office server was closed", "与办公室服务器的连接已关闭"),
    Code.SERVER_FALLBACK: Entry(_W, "read with PP-OCR on the CPU: the office server at {url} could not be reached "
                                    "({detail})",
                                "已改用 CPU 上的 PP-OCR 识别：无法连接办公室服务器 {url}（{detail}）"),
    Code.SERVER_DOWN_CPU: Entry(_W, "the office server at {url} could not be reached ({detail}); reading on the CPU "
                                    "(PP-OCR) until it answers",
                                "无法连接办公室服务器 {url}（{detail}）；在它恢复之前改用 CPU（PP-OCR）识别"),
    Code.SERVER_NOT_USED: Entry(_I, "office server not used: {reason}", "未使用办公室服务器：{reason}"),
    Code.SERVICE_TIME_LIMIT: Entry(_E, "time limit reached ({seconds} s); the document may be incomplete",
                                   "已达到时间限制（{seconds} 秒）；文档可能不完整"),
    Code.NO_AMOUNT: Entry(_W, "no amount in {raw!r}", "“{raw}”中没有金额"),
    Code.NO_DATE: Entry(_W, "no date in {raw!r}", "“{raw}”中没有日期"),
    Code.NO_TIME: Entry(_W, "no time in {raw!r}", "“{raw}”中没有时间"),
    Code.IMPOSSIBLE_DATE: Entry(_W, "impossible date {raw!r}", "不可能的日期“{raw}”"),
    Code.IMPOSSIBLE_MONTH: Entry(_W, "impossible date {raw!r}: month {month}", "不可能的日期“{raw}”：没有 {month} 月"),
    Code.IMPOSSIBLE_DAY: Entry(_W, "impossible date {raw!r}: day {day} of month {month} in {year}",
                               "不可能的日期“{raw}”：{year} 年 {month} 月没有 {day} 日"),
    Code.AMOUNT_GROUPING_AMBIGUOUS: Entry(_W, "{raw!r} is read as {value}, the {separator!r} taken as a thousands "
                                              "separator; if decimals were meant, type at most two",
                                          "“{raw}”已按千位分隔读作 {value}；如为小数，请最多输入两位小数"),
    Code.AMBIGUOUS_DATE_ORDER: Entry(_W, "day/month order of {raw!r} is ambiguous; read as {order}",
                                     "“{raw}”的日、月顺序不明确；按{order}的顺序读取"),
    Code.CURRENCY_UNCOMMON: Entry(_W, "currency {value} is not a common ISO 4217 code", "币种 {value} 不是常用的 ISO 4217 代码"),
    Code.CURRENCY_UNKNOWN: Entry(_W, "unknown currency {raw!r}", "未知币种“{raw}”"),
    Code.CURRENCY_NOT_ISO: Entry(_W, "currency {value!r} is not an ISO 4217 code", "币种“{value}”不是 ISO 4217 代码"),
    Code.CURRENCY_INFERRED: Entry(_W, "no currency is printed; {value} is inferred from {evidence}",
                                  "页面上未印有币种；{value} 是根据页面上的国家或地区信息推断的"),
    Code.CURRENCY_SIGN_CONFLICT: Entry(_W, "the sign {sign!r} reads as {printed}, but {evidence} point to {value}",
                                       "符号“{sign}”读作 {printed}，但页面上的国家或地区信息表明是 {value}"),
    Code.CURRENCY_AMBIGUOUS_SIGN: Entry(_W, "the sign {sign!r} is used by several currencies and {evidence}; "
                                            "{value} is assumed",
                                        "符号“{sign}”为多种货币共用，页面上没有说明是哪一种；暂按 {value} 处理"),
    Code.NEGATIVE_AMOUNT: Entry(_W, "{name} {value} is negative", "金额 {value} 为负数"),
    Code.NOT_AN_AMOUNT: Entry(_W, "{name} {value!r} is not an amount", "“{value}”不是金额"),
    Code.PAGE_HOLDS_TWO_DOCUMENTS: Entry(
        _W, "page {page} seems to hold two documents side by side (two columns of text, each with its own total "
            "and date): the values may be mixed from both; check them, or crop the image to one document and "
            "scan each on its own",
        "第 {page} 页似乎并排放着两张单据（两栏文字，各有自己的合计和日期）：各项值可能混自两张单据；请核对，"
        "或将图像裁剪为单张单据后分别扫描"),
    Code.PAGES_NOT_READ_AFTER: Entry(_W, "the document's page numbers say it has {count} pages and the last page read is "
                                         "page {last}: its totals are usually printed on its last page (not read: "
                                         "page {pages})",
                                     "单据页码显示共 {count} 页，读取的最后一页是第 {last} 页：合计通常印在最后一页"
                                     "（未读取：第 {pages} 页）"),
    Code.PAGES_NOT_READ_BEFORE: Entry(_W, "the document's page numbers say it has {count} pages and the first page read "
                                          "is page {first}: its issuer, number and date are usually printed on its "
                                          "first page (not read: page {pages})",
                                      "单据页码显示共 {count} 页，读取的第一页是第 {first} 页：开票方、号码和日期通常印在"
                                      "第一页（未读取：第 {pages} 页）"),
    Code.READ_FROM_LOST_PAGE: Entry(_W, "read from page {page}, part of which was lost (the file is damaged, or the "
                                        "page was not read in full): check it against the original",
                                    "读自第 {page} 页，该页有部分内容丢失（文件已损坏，或此页未完整读取）：请对照原件核对"),
    Code.LAST_PAGE_LOST: Entry(_W, "part of page {page}, the last page read, was lost (the file is damaged, or the page "
                                   "was not read in full): the totals are usually printed on the last page; check "
                                   "against the original",
                               "读取的最后一页（第 {page} 页）有部分内容丢失（文件已损坏，或此页未完整读取）：合计通常印在"
                               "最后一页；请对照原件核对"),
    Code.FIRST_PAGE_LOST: Entry(_W, "part of page {page}, the first page read, was lost (the file is damaged, or the "
                                    "page was not read in full): the issuer, number and date are usually printed on the "
                                    "first page; check against the original",
                                "读取的第一页（第 {page} 页）有部分内容丢失（文件已损坏，或此页未完整读取）：开票方、号码和"
                                "日期通常印在第一页；请对照原件核对"),
    Code.PAGES_CUT_OFF_AFTER: Entry(_W, "the PDF file is cut short, so pages after page {last} may be missing: the "
                                        "totals are usually printed on the last page; check against the original",
                                    "PDF 文件不完整，第 {last} 页之后可能缺少页面：合计通常印在最后一页；请对照原件核对"),
    Code.NOT_FOUND_PART_LOST: Entry(_W, "not found, and part of the document was lost (a damaged or cut-short file, or "
                                        "pages not read): it may have been printed there; check the original",
                                    "没有找到，且单据有部分内容丢失（文件已损坏或不完整，或有页面未读取）：它可能印在丢失的"
                                    "部分；请对照原件核对"),
    Code.NOT_AN_ADDRESS: Entry(_W, "{value!r} does not look like a postal address (no number, no street or place word)",
                               "“{value}”不像邮政地址（没有门牌号或邮编，也没有街道或地名）"),
    Code.DATE_NOT_ISO: Entry(_W, "date {value!r} is not a valid ISO 8601 date (YYYY-MM-DD)",
                             "日期“{value}”不是有效的 ISO 8601 日期（YYYY-MM-DD）"),
    Code.TAX_ID_BAD_CHARACTER: Entry(_W, "tax ID {value}: character {char!r} is not allowed (GB 32100-2015)",
                                     "税号 {value}：不允许使用字符“{char}”（GB 32100-2015）"),
    Code.TAX_ID_CHECK_CHARACTER: Entry(_W, "tax ID {value}: check character should be {expected!r} (GB 32100-2015)",
                                       "税号 {value}：校验字符应为“{expected}”（GB 32100-2015）"),
    Code.TAX_ID_LENGTH: Entry(_W, "tax ID {value}: {length} characters; expected 18 (unified social credit code, "
                                  "GB 32100-2015)",
                              "税号 {value}：{length} 个字符；应为 18 个（统一社会信用代码，GB 32100-2015）"),
    Code.IBAN_INVALID: Entry(_W, "IBAN {value}: its check digits or length are wrong (ISO 13616; a misprint or a "
                                 "misread digit): compare it with the invoice before paying",
                             "IBAN {value}：校验位或长度不正确（ISO 13616；印错或识别错了一位），付款前请与发票核对"),
    Code.TAX_ID_CHECK_DIGITS: Entry(_W, "tax ID {value}: its check digits do not verify (the number's national "
                                        "algorithm, as VIES applies it): a digit may be misread or misprinted",
                                    "税号 {value}：校验位不符（按其国家算法）：可能有数字识别错误或印错"),
    Code.TAX_ID_UNKNOWN_FORMAT: Entry(_W, "tax ID {raw!r} does not match a known VAT / GSTIN format",
                                      "税号“{raw}”不符合已知的增值税号 / GSTIN 格式"),
    Code.INVOICE_CODE_NOT_DIGITS: Entry(_W, "invoice code {value}: digits only expected", "发票代码 {value}：应只含数字"),
    Code.INVOICE_CODE_LENGTH: Entry(_W, "invoice code {value}: {length} digits; expected 10 (paper) or 12 "
                                        "(electronic/new ordinary)",
                                    "发票代码 {value}：{length} 位；应为 10 位（纸质）或 12 位（电子/新版普通发票）"),
    Code.INVOICE_CODE_REGION: Entry(_W, "invoice code {value}: region code {region} is not a Chinese province code "
                                        "(GB/T 2260)",
                                    "发票代码 {value}：地区代码 {region} 不是中国省级代码（GB/T 2260）"),
    Code.INVOICE_NUMBER_NOT_DIGITS: Entry(_W, "invoice number {value}: digits only expected", "发票号码 {value}：应只含数字"),
    Code.INVOICE_NUMBER_DIGITAL_WITH_CODE: Entry(
        _W, "invoice number {value}: 20 digits (fully digital invoice) but an invoice code is present",
        "发票号码 {value}：20 位（全电发票），但同时有发票代码"),
    Code.INVOICE_NUMBER_LENGTH: Entry(_W, "invoice number {value}: {length} digits; expected 8 (or 20 on fully digital "
                                          "invoices)",
                                      "发票号码 {value}：{length} 位；应为 8 位（全电发票为 20 位）"),
    Code.CHECK_CODE_LENGTH: Entry(_W, "check code {value}: {length} digits; expected 20", "校验码 {value}：{length} 位；应为 20 位"),
    Code.SUM_MISMATCH: Entry(_W, "subtotal + tax ≠ total ({subtotal} + {tax} = {sum}, total {total})",
                             "金额 + 税额 ≠ 合计（{subtotal} + {tax} = {sum}，合计 {total}）"),
    Code.SUBTOTAL_TOTAL_NO_TAX: Entry(
        _W, "subtotal {subtotal} and total {total} differ by {difference} and no tax was read: check the tax "
            "(or a discount, service charge or rounding)",
        "金额 {subtotal} 与合计 {total} 相差 {difference}，但没有读到税额：请核对税额（或折扣、服务费、舍入）"),
    Code.NET_NOT_PRINTED: Entry(
        _W, "no subtotal was read, and total {total} less tax {tax} ({net}) is printed nowhere: check the total and "
            "the tax",
        "未读到不含税金额，且合计 {total} 减税额 {tax}（{net}）在票面上找不到：请核对合计与税额"),
    Code.AMOUNT_DUE_UNEXPLAINED: Entry(
        _W, "amount due {due} differs from total {total} by {difference}, and no paid amount (deposit) of that size "
            "is printed: check the amount due",
        "应付金额 {due} 与合计 {total} 相差 {difference}，但票面上没有相应的已付金额（预付款）：请核对应付金额"),
    Code.QR_MISMATCH: Entry(_W, "QR code says {qr}, printed {printed}", "二维码为 {qr}，票面印的是 {printed}"),
    Code.AMOUNT_IN_WORDS_MISMATCH: Entry(_W, "amount in words {words} = {words_value}, figures say {total}",
                                         "大写金额 {words} = {words_value}，小写金额为 {total}"),
    Code.EINVOICE_MISMATCH: Entry(_W, "e-invoice data says {label} {value}, the page shows {printed}",
                                  "电子发票数据为 {value}，票面显示 {printed}"),
    Code.EINVOICE_NOT_PRINTED: Entry(_W, "e-invoice data says {label} {value}, which is not printed on the page",
                                     "电子发票数据为 {value}，但票面上没有印出"),
    Code.EINVOICE_UNREADABLE: Entry(_W, "the e-invoice data could not be read: {detail}; the pages were read instead",
                                    "无法读取电子发票数据：{detail}；已改为识别页面"),
    Code.EINVOICE_STOPPED: Entry(_E, "the reader stopped unexpectedly while reading the file's e-invoice data ({detail}): "
                                 "the file may be damaged or hostile",
                                 "读取文件中的电子发票数据时读取进程意外停止（{detail}）：文件可能已损坏或含有恶意内容"),
    Code.MEMORY_CONFLICT: Entry(_W, "the page reads {read!r}; the vendor memory (taught by {taught}) says {value!r}",
                                "票面为“{read}”；商家记忆（由 {taught} 学到）为“{value}”"),
    Code.MEMORY_REPLACED: Entry(_W, "the page also reads {read!r}; the vendor memory (taught by {taught}) says "
                                    "{value!r}", "票面上还有“{read}”；商家记忆（由 {taught} 学到）为“{value}”"),
    Code.MEMORY_REPAIRED: Entry(_W, "the page reads {read!r}; words misread there are spelled as the vendor memory "
                                    "(taught by {taught}) has them in {value!r}, the rest as read",
                                "票面为“{read}”；其中误读的词已按商家记忆（由 {taught} 学到）“{value}”更正，其余照票面"),
    Code.MEMORY_UNAVAILABLE: Entry(_W, "the vendor memory could not be used ({detail})", "无法使用商家记忆（{detail}）"),
    Code.MEMORY_PAGE_READS: Entry(_D, "the page reads {read!r}", "票面为“{read}”"),
    Code.REVIEW_NOT_READ_YET: Entry(_E, "{source} has not been read yet", "{source} 尚未识别完成"),
    Code.REVIEW_NOT_READ: Entry(_E, "{source} was not read: {reason}", "{source} 未能识别：{reason}"),
    Code.REVIEW_NOT_DUPLICATE: Entry(_E, "{source} is not marked as a duplicate", "{source} 未被标记为可能重复"),
    Code.SPLIT_OUTSIDE: Entry(_E, "cannot split pages {first}-{last} at page {page}: pick a page from {lowest} to {last}",
                              "无法在第 {page} 页拆分第 {first}-{last} 页：请选择第 {lowest} 至 {last} 页"),
    Code.SPLIT_NOT_READ: Entry(_E, "cannot split a document that was not read", "无法拆分未能识别的文档"),
    Code.MERGE_OTHER_FILES: Entry(_E, "cannot merge documents of different files ({first} and {second})",
                                  "无法合并来自不同文件的文档（{first} 和 {second}）"),
    Code.MERGE_NOT_ADJACENT: Entry(_E, "cannot merge pages {a_first}-{a_last} with pages {b_first}-{b_last}: they are "
                                       "not adjacent", "无法合并第 {a_first}-{a_last} 页与第 {b_first}-{b_last} 页：页码不相邻"),
    Code.VENDOR_NO_FIELD: Entry(_E, "a vendor profile has no field {name!r} (it has {allowed})",
                                "商家资料没有“{name}”这一项（可用：{allowed}）"),
    Code.VENDOR_NOT_FOUND: Entry(_E, "there is no vendor profile {profile}", "找不到商家资料 {profile}"),
    Code.VENDOR_NEEDS_NAME: Entry(_E, "a vendor needs a name", "商家必须有名称"),
    Code.VENDOR_MERGE_SELF: Entry(_E, "a vendor cannot be merged with itself", "商家不能与自身合并"),
    Code.VENDOR_NOT_STORED: Entry(_E, "the vendor memory did not store the new row", "商家记忆未能保存新记录"),
    Code.VENDOR_LIST_NOT_JSON: Entry(_E, "{file}: not a JSON file ({detail})", "{file}：不是 JSON 文件（{detail}）"),
    Code.VENDOR_LIST_UNREADABLE: Entry(_E, "cannot read the vendor list {file}: {reason}", "无法读取商家列表 {file}：{reason}"),
    Code.VENDOR_LIST_FORMAT: Entry(_E, "{file} is not a Shoebox vendor list (no \"format\": \"{expected}\")",
                                   "{file} 不是 Shoebox 商家列表（不是由 Shoebox 导出的）"),
    Code.VENDOR_LIST_NEWER: Entry(_E, "{file} was written by a newer Shoebox (version {version})",
                                  "{file} 由更新版本的 Shoebox 写入（版本 {version}）"),
    Code.VENDOR_LIST_NO_VENDORS: Entry(_E, "{file} has no list of vendors", "{file} 中没有商家列表"),
    Code.VENDOR_LIST_BAD_VENDOR: Entry(_E, "{file}: vendor {number} is not an object", "{file}：第 {number} 个商家格式不正确"),
    Code.VENDOR_LIST_BAD_DOCUMENT: Entry(_E, "{file}: a document of vendor {name!r} is incomplete ({detail})",
                                         "{file}：商家“{name}”的一份文档记录不完整（{detail}）"),
    Code.DUPLICATE_SAME_FILE: Entry(_I, "the same file", "同一文件"),
    Code.DUPLICATE_SAME_NUMBER: Entry(_I, "the same vendor and invoice number", "同一商家、同一发票号码"),
    Code.DUPLICATE_SAME_DATE_TOTAL: Entry(_I, "the same vendor, date and total", "同一商家、同一日期和金额"),
    Code.DUPLICATE_SAME_FIGURES: Entry(_I, "the same vendor and the same figures printed", "同一商家、印有相同的数字"),
    Code.DUPLICATE_SAME_NUMBER_DATE_TOTAL: Entry(_I, "the same document number, date and total (the vendor was not read)",
                                                 "同一单据号码、同一日期和金额（未识别出商家）"),
    Code.POSSIBLE_DUPLICATE: Entry(_W, "possible duplicate of {source} ({reason})", "可能与 {source} 重复（{reason}）"),
    # {flagged}: why it was flagged as read (desktop.core.flags.flag_diagnostics, a list of diagnostics)
    Code.FIELD_REVIEWED: Entry(_I, "checked by the clerk (the document is marked reviewed); as read, it was flagged: "
                                   "{flagged}", "已由人工核对（单据已标记为已审核）；识别时的标记：{flagged}"),
    Code.FIELD_EMPTY_KEY: Entry(_W, "empty: not found on the page", "空：页面上没有找到"),
    Code.FIELD_NOT_FOUND: Entry(_W, "not found", "没有找到"),
    # {confidence}: a percentage ("45%")
    Code.FIELD_LOW_CONFIDENCE: Entry(_W, "confidence {confidence}, below the {needed} needed to pass unchecked",
                                     "置信度 {confidence}，低于免核对所需的 {needed}"),
    Code.FIELD_ALWAYS_CHECKED: Entry(_W, "confidence {confidence}; this field is always checked on this kind of "
                                         "document",
                                     "置信度 {confidence}；此类单据的这一字段总是需要核对"),
    Code.FIELD_NOT_SURE: Entry(_W, "confidence {confidence}, but flagged when it was read: not sure enough to pass "
                                   "unchecked",
                               "置信度 {confidence}，但读取时已被标记：不够确定，不能不经核对"),
    Code.EINVOICE_QR_MISMATCH: Entry(_W, "e-invoice data says {label} {value}, the QR code says {qr}",
                                     "电子发票数据为 {value}，二维码为 {qr}"),
    Code.XML_NOT_AN_INVOICE: Entry(_E, f"this XML file is not an e-invoice Shoebox reads ({{detail}}); {_READABLE_EN}",
                                   f"此 XML 文件不是 Shoebox 可读取的电子发票（{{detail}}）；{_READABLE_ZH}"),
    Code.XML_INVOICE_UNREADABLE: Entry(_E, "the XML invoice cannot be read: {detail}", "无法读取 XML 发票：{detail}"),
    Code.OFD_UNREADABLE: Entry(_E, "the OFD file cannot be read: {detail}", "无法读取 OFD 文件：{detail}"),
    Code.OFD_IMAGE_NOT_SHOWN: Entry(_I, "an image of this OFD page ({kind}) cannot be shown; the rest of the page is drawn",
                                    "此 OFD 页面中的一幅图像（{kind}）无法显示；页面其余部分已绘制"),
    Code.OFD_IMAGE_MISSING: Entry(_I, "an image this OFD page refers to is missing from the package",
                                  "此 OFD 页面引用的图像不在文件包中"),
    Code.OFD_OBJECT_NOT_DRAWN: Entry(_I, "a {kind} on this OFD page could not be drawn ({detail})",
                                     "此 OFD 页面上的一个{kind}无法绘制（{detail}）"),
    Code.OFD_PAGES_CUT: Entry(_W, "only the first {shown} of {pages} pages are shown", "只显示了 {pages} 页中的前 {shown} 页"),
    Code.POSITIVE_ON_CREDIT_NOTE: Entry(_W, "{name} {value} is positive on a credit note (its amounts are negative)",
                                        "红字发票/退款单上的金额 {value} 为正数（其金额应为负数）"),
    Code.TOTAL_INCLUDES_CASH_BACK: Entry(_W, "total {value} is {purchase} plus the cash back {cash_back}: the purchase "
                                             "is probably {purchase}",
                                         "总额 {value} 等于 {purchase} 加上取现金额 {cash_back}：消费金额可能是 {purchase}"),
    Code.SUBTOTAL_AS_TOTAL: Entry(_W, "no total label was found: the subtotal {raw} is used as the total; check it",
                                  "没有找到合计标签：以小计 {raw} 作为合计，请核对"),
    Code.SYMLINK_LOOP: Entry(_E, "a loop of symbolic links (following the links leads back to where they started)",
                             "符号链接循环（沿着链接走下去又回到了起点）"),
    Code.FILES_SKIPPED: Entry(_W, "{count} file(s) skipped in the folders: not an image, PDF or e-invoice by name or "
                                  "content ({names})",
                              "文件夹中跳过了 {count} 个文件：从名称和内容看都不是图像、PDF 或电子发票（{names}）"),
    Code.GIVEN_REPEATEDLY: Entry(_I, "given {times} times; read once", "给出了 {times} 次；只读取一次"),
    Code.GIVEN_REPEATEDLY_AS: Entry(_I, "given {times} times (also as {names}: the same file); read once",
                                    "给出了 {times} 次（也以 {names} 的名称给出：是同一个文件）；只读取一次"),
    Code.FOLDER_LINK_LOOP: Entry(_E, "a symbolic-link loop: the link leads back to {target}, a folder that contains "
                                     "it; that folder was not read a second time",
                                 "符号链接循环：此链接指回包含它的文件夹 {target}；该文件夹没有重复读取"),
    Code.BROKEN_LINK: Entry(_E, "a broken symbolic link (to {target})", "失效的符号链接（指向 {target}）"),
    Code.SPECIAL_FILE: Entry(_E, "{kind}, not a document file", "{kind}，不是单据文件"),
    Code.FOLDER_UNREADABLE: Entry(_E, "the folder cannot be read ({detail}); its files were not read",
                                  "无法读取文件夹（{detail}）；其中的文件没有读取"),
    Code.PDF_CONTENT_LOST: Entry(_W, "the PDF is damaged and part of this page could not be loaded (MuPDF: {detail}); "
                                     "text may be missing",
                                 "PDF 已损坏，此页部分内容无法载入（MuPDF：{detail}）；可能缺少文字"),
    Code.PDF_PAGE_CONTENT_GONE: Entry(_W, "the PDF was damaged and its repair lost this page's content (no content "
                                          "stream is left); the page reads as blank but may not have been",
                                      "PDF 已损坏，修复时丢失了此页的内容（没有剩余的内容流）；此页读作空白，但原本可能有内容"),
    Code.READ_ZOOMED: Entry(_I, "the content covers {share} of the page: its region ({width}x{height} px) was read "
                                "at {scale}x, in {tiles} piece(s)",
                            "内容只占页面的 {share}：内容区域（{width}x{height} 像素）以 {scale} 倍识别，共 {tiles} 块"),
    Code.READ_IN_TILES: Entry(_I, "a long strip ({ratio}:1): read at {scale}x in {tiles} overlapping tiles",
                              "长条页面（{ratio}:1）：以 {scale} 倍分 {tiles} 块重叠识别"),
    Code.PAGES_SPLIT_OWN_NUMBER: Entry(_I, "starts at page {page}: it carries invoice number {number}, the pages "
                                           "before {previous}",
                                       "从第 {page} 页开始：此页的发票号码为 {number}，之前的页面为 {previous}"),
    Code.PAGES_SPLIT_OWN_START: Entry(_I, "starts at page {page}: it has its own header, date or total, and the "
                                          "document before it already has its total",
                                      "从第 {page} 页开始：此页有自己的抬头、日期或合计，而前一份单据已有合计"),
    Code.PAGES_SPLIT_KIND: Entry(_I, "starts at page {page}: a different kind of page ({kind} after {previous}) with a "
                                     "start of its own",
                                 "从第 {page} 页开始：页面类型不同（{previous} 之后是 {kind}），且有自己的开头"),
    Code.PAGES_SPLIT_CONTENT_LOST: Entry(_W, "starts at page {page}: nothing could be read on it and its content may "
                                             "have been lost, so it is kept as a document of its own rather than "
                                             "taken for a continuation",
                                         "从第 {page} 页开始：此页什么也没有读到，其内容可能已丢失，因此单独作为一份单据，"
                                         "而不视为续页"),
    Code.PAGES_SPLIT_AFTER_CONTENT_LOST: Entry(_I, "starts at page {page}: nothing could be read on page {previous} "
                                                   "before it, so it is not taken for that page's continuation",
                                               "从第 {page} 页开始：前面的第 {previous} 页什么也没有读到，因此不视为该页的续页"),
    Code.PAGES_SPLIT_AFTER: Entry(_I, "split after page {page}: page {next} starts another document",
                                  "在第 {page} 页之后拆分：第 {next} 页开始另一份单据"),
    Code.PAGES_JOINED_SAME_NUMBER: Entry(_I, "pages joined: page {page} carries the same invoice number {number}",
                                         "页面合并：第 {page} 页的发票号码相同（{number}）"),
    Code.PAGES_JOINED_CONTINUATION: Entry(_I, "pages joined: page {page} has no header, date and total of its "
                                              "own; it continues page {previous}",
                                          "页面合并：第 {page} 页没有自己的抬头、日期和合计，是第 {previous} 页的续页"),
    Code.PAGES_JOINED_NO_TOTAL_YET: Entry(_I, "pages joined: page {page} has a header of its own, but the "
                                              "document before it has no total yet; it continues page {previous}",
                                          "页面合并：第 {page} 页虽有自己的抬头，但前一份单据还没有合计，"
                                          "故视为第 {previous} 页的续页"),
    Code.PAGES_JOINED_CONTENT_LOST: Entry(_I, "pages joined: nothing could be read on page {page} and its content may "
                                              "have been lost; a page that shows nothing is no sign of another "
                                              "document, so it stays with page {previous} (split it off if it was one)",
                                          "页面合并：第 {page} 页什么也没有读到，其内容可能已丢失；什么也不显示的页面不能说明"
                                          "是另一份单据，因此与第 {previous} 页保留在一起（如确是另一份，可将其拆出）"),
    Code.PAGES_JOINED_NOTHING_READ_BEFORE: Entry(_I, "pages joined: nothing was read on this document's pages "
                                                     "before page {page}, so nothing sets it apart from them",
                                                 "页面合并：本单据第 {page} 页之前的页面什么也没有读到，无从与此页区分"),
    Code.PAGES_JOINED_EINVOICE: Entry(_I, "pages joined: the file carries the data of one e-invoice",
                                      "页面合并：文件带有一张电子发票的数据"),
    Code.PAGE_BOUNDARIES_FAILED: Entry(_W, "the pages were kept as one document: deciding page boundaries failed "
                                           "({reason})",
                                       "页面保留为一份单据：判断页面边界失败（{reason}）"),
    Code.CLERK_SPLIT: Entry(_I, "split by the clerk: pages {first}-{last} at page {at}; this document is pages "
                                "{lo}-{hi}",
                            "人工拆分：第 {first}-{last} 页在第 {at} 页处拆开；本单据为第 {lo}-{hi} 页"),
    Code.CLERK_MERGED: Entry(_I, "merged by the clerk: pages {a_first}-{a_last} and {b_first}-{b_last} are one "
                                 "document",
                             "人工合并：第 {a_first}-{a_last} 页与第 {b_first}-{b_last} 页合为一份单据"),
    Code.EXPORT_UNKNOWN_TYPE: Entry(_E, "unknown file type {suffix!r}; use .xlsx, .csv or .json",
                                    "未知的文件类型“{suffix}”；请使用 .xlsx、.csv 或 .json"),
    Code.EXPORT_NO_SUFFIX: Entry(_E, "unknown file type '(no suffix)'; use .xlsx, .csv or .json",
                                 "文件名没有扩展名；请使用 .xlsx、.csv 或 .json"),
    Code.EXPORT_IS_FOLDER: Entry(_E, "it is a folder", "这是一个文件夹"),
    Code.EXPORT_NO_FOLDER: Entry(_E, "the folder {folder} does not exist", "文件夹 {folder} 不存在"),
    Code.EXPORT_NOT_A_FOLDER: Entry(_E, "cannot write into {folder}: {file} is a file, not a folder",
                                    "无法写入 {folder}：{file} 是文件，不是文件夹"),
    Code.EXPORT_FOLDER_REFUSES: Entry(_E, "the folder {folder} does not accept new files", "文件夹 {folder} 不接受新文件"),
    Code.EXPORT_PERMISSION: Entry(_E, "permission denied", "没有写入权限"),
    Code.EXPORT_FILE_OPEN: Entry(_E, "the file is open in another program; close it and try again",
                                 "文件正被其他程序打开；请关闭后重试"),
    Code.EXPORT_DISK_FULL: Entry(_E, "the disk is full", "磁盘已满"),
    Code.EXPORT_DISK_FULL_FREE: Entry(_E, "the disk is full ({free} KiB free)", "磁盘已满（剩余 {free} KiB）"),
    Code.EXPORT_QUOTA: Entry(_E, "the disk quota is exceeded", "超出磁盘配额"),
    Code.EXPORT_READ_ONLY: Entry(_E, "the disk is read-only", "磁盘是只读的"),
    Code.EXPORT_NAME_TOO_LONG: Entry(_E, "the file name is too long", "文件名太长"),
    Code.EXPORT_OS_ERROR: Entry(_E, "{detail}", "系统拒绝写入（{detail}）"),
    Code.EXPORT_WRITER_FAILED: Entry(_E, "{detail}", "写入文件时出错（{detail}）"),
    Code.SESSION_KEPT_ASIDE: Entry(_W, "The saved session could not be read ({detail}). It was kept as {kept} in "
                                       "{folder}, and a new session was started.",
                                   "无法读取保存的会话（{detail}）。原文件已保留为 {folder} 中的 {kept}，并已开始新的会话。"),
    Code.SESSION_UNSAVED: Entry(_W, "The session file {path} cannot be used ({detail}). Shoebox works, but this "
                                    "session will not be saved: check the folder's permissions.",
                                "无法使用会话文件 {path}（{detail}）。Shoebox 可以正常使用，但本次会话不会被保存："
                                "请检查文件夹的权限。"),
    Code.SESSION_NEWER: Entry(_W, "The saved session {path} was written by a newer Shoebox (schema {version}); it "
                                  "was left as it is. This session will not be saved.",
                              "保存的会话 {path} 由较新版本的 Shoebox 写入（格式 {version}）；已保持原样。"
                              "本次会话不会被保存。"),
    Code.INTERRUPTED_WRITING: Entry(_E, "interrupted after {done} of {files} files; writing the {count} document(s) "
                                        "already read",
                                    "在 {files} 个文件中读完 {done} 个后中断；正在写入已读取的 {count} 份单据"),
    Code.THROUGHPUT: Entry(_D, "{pages} pages, {rate} pages/min, {left} left", "已读 {pages} 页，每分钟 {rate} 页，剩余 {left}"),
    Code.THROUGHPUT_START: Entry(_D, "0 pages", "已读 0 页"),
    Code.THROUGHPUT_ONE: Entry(_D, "1 page, {rate} pages/min, {left} left", "已读 1 页，每分钟 {rate} 页，剩余 {left}"),
    Code.USAGE: Entry(_E, "{detail}", "{detail}"),
    Code.OUTPUT_FAILED: Entry(_E, "{detail}", "{detail}"),
    Code.INTERRUPTED: Entry(_E, "interrupted; nothing written", "已中断；没有写入任何内容"),
}


#: Parameters that may hold a library's own words (an exception's English message: Pillow's "image
#: file is truncated", MuPDF's "zlib error", an HTTP client's "connection refused") or our own
#: component's English detail. Where such a parameter is plain text, the Chinese message leaves it
#: out (:data:`ZH_WITHOUT_LIBRARY_TEXT`), and so does the plain English one (``message("en",
#: plain=True)``, :data:`EN_WITHOUT_LIBRARY_TEXT`) that the GUI's compact places show (the queue card,
#: page notes, a field's problems, the status bar); the English message, the CLI's stderr, the JSON,
#: the xlsx Problems sheet and the GUI's tooltip keep it for support (:func:`library_text`). A nested
#: diagnostic in the same place is rendered in the reader's language (plainly, when asked).
LIBRARY_TEXT_PARAMS = frozenset({"detail", "reason", "problem"})

#: The Chinese message of each code whose template shows a :data:`LIBRARY_TEXT_PARAMS` parameter,
#: for when that parameter is plain (English) text.
ZH_WITHOUT_LIBRARY_TEXT: dict[Code, str] = {
    Code.VENDOR_LIST_UNREADABLE: "无法读取商家列表 {file}",
    Code.REVIEW_NOT_READ: "{source} 未能识别",
    Code.VENDOR_LIST_NOT_JSON: "{file}：不是 JSON 文件",
    Code.VENDOR_LIST_BAD_DOCUMENT: "{file}：商家“{name}”的一份文档记录不完整",
    Code.FILE_UNREADABLE: "无法读取文件",
    Code.IMAGE_DAMAGED: "文件已损坏或不是完整的图像",
    Code.IMAGE_VARIANT_UNSUPPORTED: "图像使用了 Shoebox 无法解码的变体",
    Code.COLOUR_MODE_UNSUPPORTED: "图像使用了 Shoebox 无法转换的颜色模式（{mode}）",
    Code.PDF_UNOPENABLE_DETAIL: "PDF 已损坏，无法打开",
    Code.PDF_DAMAGED: "PDF 已损坏",
    Code.PDF_PAGE_DAMAGED: "PDF 第 {page} 页已损坏",
    Code.PDF_PAGE_UNRENDERABLE: "PDF 第 {page} 页无法渲染",
    Code.SAVED_RESULT_UNREADABLE: "保存的结果无法读回",
    Code.ORIENTATION_CHECK_FAILED: "无法判断页面方向；按扫描方向识别",
    Code.PAGE_NOT_READ: "第 {page} 页无法读取",
    Code.PAGES_AFTER_NOT_READ: "第 {page} 页之后的页面无法读取",
    Code.REREAD_FAILED: "重新识别失败",
    Code.TASK_PAGE_FAILED: "第 {page} 页处理失败",
    Code.ALL_PAGES_FAILED: "页面处理失败（另有 {more} 页失败）",
    Code.ENGINE_UNAVAILABLE: "识别引擎不可用",
    Code.ENGINE_FAILED: "识别引擎出错",
    Code.ENGINE_CRASHED: "读取第 {page} 页时识别引擎意外停止",
    Code.WORKER_ANSWER_LOST: "进程的回答中断",
    Code.WORKER_LAST_WORDS: "{how}",
    Code.READER_STOPPED: "文件读取进程意外停止：文件可能已损坏或含有恶意内容",
    Code.ENGINE_NOTE: "识别引擎对此页有一条提示：请检查此页",
    Code.ENGINE_FALLBACK: "未使用 HunyuanOCR。改用 CPU 上的 PP-OCR。",
    Code.MODEL_FIELDS_FAILED: "AI 模型未能读取第 {page} 页的字段；已改为从页面文字读取",
    Code.MODEL_INDEX_UNREADABLE: "可读取的 model.safetensors.index.json",
    Code.FIELDS_FAILED: "读取字段失败",
    Code.UNEXPECTED: "意外错误",
    Code.EXCEPTION: "出现错误",
    Code.SERVER_BAD_URL: "服务器地址 {url} 无效",
    Code.SERVER_NAME_UNRESOLVED: "无法连接办公室服务器 {url}：无法解析主机名 {host}",
    Code.SERVER_UNREACHABLE: "无法连接办公室服务器 {url}",
    Code.SERVER_HTTP_ERROR: "办公室服务器 {url} 返回 HTTP {status}",
    Code.SERVER_FALLBACK: "已改用 CPU 上的 PP-OCR 识别：无法连接办公室服务器 {url}",
    Code.SERVER_DOWN_CPU: "无法连接办公室服务器 {url}；在它恢复之前改用 CPU（PP-OCR）识别",
    Code.SERVER_NOT_USED: "未使用办公室服务器",
    Code.EINVOICE_UNREADABLE: "无法读取电子发票数据；已改为识别页面",
    Code.EINVOICE_STOPPED: "读取文件中的电子发票数据时读取进程意外停止：文件可能已损坏或含有恶意内容",
    Code.MEMORY_UNAVAILABLE: "无法使用商家记忆",
    Code.POSSIBLE_DUPLICATE: "可能与 {source} 重复",
    Code.XML_NOT_AN_INVOICE: f"此 XML 文件不是 Shoebox 可读取的电子发票；{_READABLE_ZH}",
    Code.XML_INVOICE_UNREADABLE: "无法读取 XML 发票",
    Code.OFD_UNREADABLE: "无法读取 OFD 文件",
    Code.OFD_OBJECT_NOT_DRAWN: "此 OFD 页面上的一个{kind}无法绘制",
    Code.FOLDER_UNREADABLE: "无法读取文件夹；其中的文件没有读取",
    Code.PDF_CONTENT_LOST: "PDF 已损坏，此页部分内容无法载入；可能缺少文字",
    Code.PAGE_BOUNDARIES_FAILED: "页面保留为一份单据：判断页面边界失败",
    Code.EXPORT_OS_ERROR: "系统拒绝写入",
    Code.EXPORT_WRITER_FAILED: "写入文件时出错",
    Code.SESSION_KEPT_ASIDE: "无法读取保存的会话。原文件已保留为 {folder} 中的 {kept}，并已开始新的会话。",
    Code.SESSION_UNSAVED: "无法使用会话文件 {path}。Shoebox 可以正常使用，但本次会话不会被保存：请检查文件夹的权限。",
    Code.USAGE: "命令用法有误",
    Code.OUTPUT_FAILED: "无法写入输出",
}

#: The plain English message of each code of :data:`ZH_WITHOUT_LIBRARY_TEXT` (every code whose template
#: shows a :data:`LIBRARY_TEXT_PARAMS` parameter), for when that parameter is plain text: the sentence a
#: clerk reads, without the library's words (``message("en", plain=True)``; the tooltip has them).
EN_WITHOUT_LIBRARY_TEXT: dict[Code, str] = {
    Code.VENDOR_LIST_UNREADABLE: "cannot read the vendor list {file}",
    Code.REVIEW_NOT_READ: "{source} was not read",
    Code.VENDOR_LIST_NOT_JSON: "{file}: not a JSON file",
    Code.VENDOR_LIST_BAD_DOCUMENT: "{file}: a document of vendor {name!r} is incomplete",
    Code.FILE_UNREADABLE: "the file cannot be read",
    Code.IMAGE_DAMAGED: "the file is damaged or not a complete image",
    Code.IMAGE_VARIANT_UNSUPPORTED: "the image uses a variant Shoebox cannot decode",
    Code.COLOUR_MODE_UNSUPPORTED: "the image uses a colour mode Shoebox cannot convert ({mode})",
    Code.PDF_UNOPENABLE_DETAIL: "the PDF is damaged and cannot be opened",
    Code.PDF_DAMAGED: "the PDF is damaged",
    Code.PDF_PAGE_DAMAGED: "page {page} of the PDF is damaged",
    Code.PDF_PAGE_UNRENDERABLE: "page {page} of the PDF cannot be rendered",
    Code.SAVED_RESULT_UNREADABLE: "the saved result could not be read back",
    Code.ORIENTATION_CHECK_FAILED: "orientation check failed; read as scanned",
    Code.PAGE_NOT_READ: "page {page} could not be read",
    Code.PAGES_AFTER_NOT_READ: "pages after {page} could not be read",
    Code.REREAD_FAILED: "reading again failed",
    Code.TASK_PAGE_FAILED: "page {page} could not be processed",
    Code.ALL_PAGES_FAILED: "a page could not be read (and {more} more page failures)",
    Code.ENGINE_UNAVAILABLE: "the engine is unavailable",
    Code.ENGINE_FAILED: "the engine failed",
    Code.ENGINE_CRASHED: "the engine stopped unexpectedly while reading page {page}",
    Code.WORKER_ANSWER_LOST: "its answer broke off",
    Code.WORKER_LAST_WORDS: "{how}",
    Code.READER_STOPPED: "the file reader stopped unexpectedly: the file may be damaged or malicious",
    Code.ENGINE_NOTE: "the engine left a note on this page: check this page",
    Code.ENGINE_FALLBACK: "HunyuanOCR not used. Using PP-OCR on the CPU.",
    Code.MODEL_FIELDS_FAILED: "the AI model ({engine}) could not read the fields of page {page}; "
                              "they were read from the page text instead",
    Code.MODEL_INDEX_UNREADABLE: "a readable model.safetensors.index.json",
    Code.FIELDS_FAILED: "reading the fields failed",
    Code.UNEXPECTED: "unexpected error",
    Code.EXCEPTION: "an error occurred",
    Code.SERVER_BAD_URL: "the server address {url} is not valid",
    Code.SERVER_NAME_UNRESOLVED: "the office server at {url} could not be reached: the name {host} does not resolve",
    Code.SERVER_UNREACHABLE: "the office server at {url} could not be reached",
    Code.SERVER_HTTP_ERROR: "the office server at {url} answered HTTP {status}",
    Code.SERVER_FALLBACK: "read with PP-OCR on the CPU: the office server at {url} could not be reached",
    Code.SERVER_DOWN_CPU: "the office server at {url} could not be reached; reading on the CPU (PP-OCR) until it "
                          "answers",
    Code.SERVER_NOT_USED: "office server not used",
    Code.EINVOICE_UNREADABLE: "the e-invoice data could not be read; the pages were read instead",
    Code.EINVOICE_STOPPED: "the reader stopped unexpectedly while reading the file's e-invoice data: the file may be "
                           "damaged or hostile",
    Code.MEMORY_UNAVAILABLE: "the vendor memory could not be used",
    Code.POSSIBLE_DUPLICATE: "possible duplicate of {source}",
    Code.XML_NOT_AN_INVOICE: f"this XML file is not an e-invoice Shoebox reads; {_READABLE_EN}",
    Code.XML_INVOICE_UNREADABLE: "the XML invoice cannot be read",
    Code.OFD_UNREADABLE: "the OFD file cannot be read",
    Code.OFD_OBJECT_NOT_DRAWN: "a {kind} on this OFD page could not be drawn",
    Code.FOLDER_UNREADABLE: "the folder cannot be read; its files were not read",
    Code.PDF_CONTENT_LOST: "the PDF is damaged and part of this page could not be loaded; text may be missing",
    Code.PAGE_BOUNDARIES_FAILED: "the pages were kept as one document: deciding page boundaries failed",
    Code.EXPORT_OS_ERROR: "the system refused to write the file",
    Code.EXPORT_WRITER_FAILED: "an error occurred while writing the file",
    Code.SESSION_KEPT_ASIDE: "The saved session could not be read. It was kept as {kept} in {folder}, and a new "
                             "session was started.",
    Code.SESSION_UNSAVED: "The session file {path} cannot be used. Shoebox works, but this session will not be saved: "
                          "check the folder's permissions.",
    Code.USAGE: "the command was not used correctly",
    Code.OUTPUT_FAILED: "the output could not be written",
}


@dataclass(frozen=True)
class Diagnostic:
    """One error, warning, problem or note.

    Attributes:
        code: what happened (stable; see :class:`Code`).
        severity: how much it matters (defaults to the code's catalogue severity, see :func:`diag`).
        page: the 1-based page number it concerns, or ``None``.
        field: the canonical field name it concerns, or ``None``.
        params: the values its message is rendered with (strings, numbers, or nested diagnostics).
    """

    code: Code
    severity: Severity = Severity.WARNING
    page: int | None = None
    field: str | None = None
    params: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def message(self, language: str = "en", *, plain: bool = False) -> str:
        """The message in ``language`` (``en`` or ``zh``; see :func:`render`); ``plain``: without a
        library's own words (the Chinese message never has them; :func:`library_text` gives them)."""
        return render(self, language, plain=plain)

    def __str__(self) -> str:
        return self.message("en")

    def __hash__(self) -> int:
        return hash((self.code, self.severity, self.page, self.field, _freeze(self.params)))

    def to_dict(self) -> dict[str, Any]:
        """The JSON object (see the module docstring)."""
        return {
            "code": self.code.value,
            "severity": self.severity.value,
            "message": self.message("en"),
            "page": self.page,
            "field": self.field,
            "params": {k: _param_out(v) for k, v in self.params.items()},
        }

    @classmethod
    def from_dict(cls, d: Any) -> Diagnostic:
        """Read :meth:`to_dict`'s object, or a plain string written by an older version (:attr:`Code.TEXT`).

        An unknown code (written by a newer version) reads as :attr:`Code.TEXT` with its message.
        """
        if isinstance(d, Diagnostic):
            return d
        if not isinstance(d, dict):
            return text(str(d))
        try:
            code = Code(str(d.get("code")))
        except ValueError:
            return text(str(d.get("message", "")), page=d.get("page"), field=d.get("field"))
        try:
            severity = Severity(d.get("severity") or CATALOGUE[code].severity)
        except ValueError:
            severity = CATALOGUE[code].severity
        params = {k: _param_in(v) for k, v in dict(d.get("params") or {}).items()}
        return cls(code=code, severity=severity, page=d.get("page"), field=d.get("field"), params=params)


def _param_out(value: Any) -> Any:
    """A parameter as JSON: a diagnostic (or a list of them) as its object."""
    if isinstance(value, Diagnostic):
        return value.to_dict()
    if isinstance(value, list | tuple):
        return [_param_out(v) for v in value]
    return value


def _param_in(value: Any) -> Any:
    """:func:`_param_out`'s JSON read back."""
    if isinstance(value, dict) and "code" in value:
        return Diagnostic.from_dict(value)
    if isinstance(value, list):
        return [_param_in(v) for v in value]
    return value


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def diag(code: Code, *, severity: Severity | None = None, page: int | None = None, field: str | None = None,
         **params: Any) -> Diagnostic:
    """A :class:`Diagnostic` with the code's catalogue severity unless ``severity`` is given."""
    return Diagnostic(code, severity or CATALOGUE[code].severity, page, field, params)


def text(message: str, *, severity: Severity = Severity.WARNING, page: int | None = None,
         field: str | None = None) -> Diagnostic:
    """Free text as a diagnostic (:attr:`Code.TEXT`): what older versions wrote."""
    return Diagnostic(Code.TEXT, severity, page, field, {"text": message})


def as_diagnostic(value: Diagnostic | str | dict[str, Any]) -> Diagnostic:
    """``value`` as a :class:`Diagnostic` (a string becomes :attr:`Code.TEXT`, a dict is read as JSON)."""
    return Diagnostic.from_dict(value)


#: Chinese names of the file kinds :attr:`Code.UNSUPPORTED_KIND` names (its ``kind`` parameter).
_KIND_ZH = {
    "a GIF image": "GIF 图像", "a ZIP archive or an Office document": "ZIP 压缩包或 Office 文档",
    "an old-style Office document": "旧版 Office 文档", "a JPEG 2000 image": "JPEG 2000 图像",
    "a PostScript file": "PostScript 文件", "a DjVu document": "DjVu 文档", "an RTF document": "RTF 文档",
    "a RAR archive": "RAR 压缩包", "a gzip archive": "gzip 压缩包",
    "a FIFO (named pipe)": "FIFO（命名管道）", "a socket": "套接字", "a character device": "字符设备",
    "a block device": "块设备", "not a regular file": "非普通文件",
}


#: Parameters whose lists are of words (what a model folder lacks), joined by commas even when
#: their items are diagnostics.
_WORD_LISTS = frozenset({"missing", "shards"})

#: The numeric date orders (:mod:`desktop.core.extraction.dates`, the ``order`` parameter) in Chinese words.
_ORDER_ZH = {"DMY": "日/月/年", "MDY": "月/日/年", "YMD": "年/月/日", "text": "文字日期"}

#: Chinese names of the OFD page objects (``kind`` of :attr:`Code.OFD_OBJECT_NOT_DRAWN`, GB/T 33190).
_OFD_OBJECT_ZH = {"TextObject": "文字对象", "PathObject": "图形对象", "ImageObject": "图像对象",
                  "PageBlock": "页面块", "unknown": "未知格式"}

#: Chinese names of the places the HunyuanOCR model folder is looked for (the ``where`` parameter).
_WHERE_ZH = {
    "--model-dir / settings": "--model-dir / 设置", "user data folder": "用户数据文件夹",
    "beside the application": "应用程序旁", "beside the desktop package": "desktop 软件包旁",
}


def _param_text(key: str, value: Any, language: str, plain: bool = False) -> Any:
    zh = language.lower().startswith("zh")
    if isinstance(value, Diagnostic):
        return render(value, language, plain=plain)
    if isinstance(value, list | tuple):  # each item in the language; clauses by semicolons, words by commas
        clauses = key not in _WORD_LISTS and any(isinstance(v, Diagnostic) for v in value)
        sep = ("；" if clauses else "、") if zh else ("; " if clauses else ", ")
        return sep.join(str(_param_text(key, v, language, plain)) for v in value)
    if zh and key == "kind":
        return _KIND_ZH.get(value) or _OFD_OBJECT_ZH.get(value, value)
    if zh and key == "order":
        return _ORDER_ZH.get(value, value)
    if zh and key == "where":
        return _WHERE_ZH.get(value, value)
    return value


class _Params(dict[str, Any]):
    """Format parameters: nested diagnostics (and lists of them) rendered in the language, a missing
    one shown as ``?``."""

    def __init__(self, values: Mapping[str, Any], language: str, plain: bool = False) -> None:
        super().__init__({k: _param_text(k, v, language, plain) for k, v in values.items()})

    def __missing__(self, key: str) -> str:
        return "?"


def render(d: Diagnostic, language: str = "en", *, plain: bool = False) -> str:
    """The message of ``d`` in ``language``.

    Args:
        d: the diagnostic.
        language: ``en``, ``zh`` (Simplified Chinese), or a locale name (``zh_CN`` -> ``zh``; anything
            else English).
        plain: leave out a library's own words (a plain-text :data:`LIBRARY_TEXT_PARAMS` value, here
            and in nested diagnostics), as the Chinese message always does: the sentence for the GUI's
            compact places (:data:`EN_WITHOUT_LIBRARY_TEXT`; :func:`library_text` has the words).

    Returns:
        The message; a template field the diagnostic has no parameter for is shown as ``?``.
    """
    entry = CATALOGUE[d.code]
    zh = language.lower().startswith("zh")
    template = entry.zh if zh else entry.en
    without = ZH_WITHOUT_LIBRARY_TEXT if zh else EN_WITHOUT_LIBRARY_TEXT if plain else {}
    if d.code in without and any(_is_library_text(d.params.get(k)) for k in LIBRARY_TEXT_PARAMS):
        template = without[d.code]  # a library's English words stay out of the Chinese (or plain) text
    values = {"page": d.page, "field": d.field, **d.params}
    try:
        return template.format_map(_Params(values, language, plain))
    except (ValueError, IndexError, KeyError):  # a malformed value; never lose the message
        return f"{entry.en} {dict(d.params)}"


def _is_library_text(value: Any) -> bool:
    """Plain text, or free text carried as a diagnostic (:attr:`Code.TEXT`: an engine's own note)."""
    return isinstance(value, str) or (isinstance(value, Diagnostic) and value.code is Code.TEXT)


def library_text(d: Diagnostic) -> list[str]:
    """The library's own words inside ``d`` and its nested diagnostics (the plain-text
    :data:`LIBRARY_TEXT_PARAMS` values, which the Chinese and the plain English message leave out),
    outermost first: for a tooltip or a support question."""
    out: list[str] = []
    for key, value in d.params.items():
        items = value if isinstance(value, list | tuple) else [value]
        for item in items:
            if isinstance(item, Diagnostic) and item.code is not Code.TEXT:
                out += [t for t in library_text(item) if t not in out]
            elif key in LIBRARY_TEXT_PARAMS and _is_library_text(item):
                words = str(item) if isinstance(item, str) else item.message("en")
                if words and words not in out:
                    out.append(words)
    return out


# --------------------------------------------------------------------------------------------------
# exit codes


class DiagnosticError(ValueError):
    """An operation that cannot be done (a clerk's split of a one-page document, a vendor list that is
    not one), with why as a diagnostic, so each interface words it in its own language.

    Attributes:
        diagnostic: why (an error-severity code of :data:`CATALOGUE`).

    ``str()`` is the English message.
    """

    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(diagnostic.message("en"))


def error_text(exc: BaseException, language: str = "en") -> str:
    """``exc``'s message in ``language``: a :class:`DiagnosticError`'s diagnostic rendered, else ``str(exc)``."""
    if isinstance(exc, DiagnosticError):
        return exc.diagnostic.message(language)
    return str(exc)


class ExitCode(IntEnum):
    """``shoebox`` exit statuses (documented in :mod:`desktop.cli`)."""

    OK = 0
    SOME_FAILED = 1
    USAGE = 2
    NOTHING_DONE = 3
    ENGINE_UNAVAILABLE = 4
    NO_WINDOW = 5
    INTERRUPTED = 130


#: The exit status each error code calls for. A file that failed for its own reasons is
#: ``SOME_FAILED`` (``NOTHING_DONE`` when no file at all was read; see :func:`exit_code_for`).
EXIT_CODES: dict[Code, ExitCode] = {
    **{code: ExitCode.SOME_FAILED for code, entry in CATALOGUE.items() if entry.severity is Severity.ERROR},
    Code.ENGINE_UNAVAILABLE: ExitCode.ENGINE_UNAVAILABLE,
    Code.USAGE: ExitCode.USAGE,
    Code.OUTPUT_FAILED: ExitCode.NOTHING_DONE,
    Code.INTERRUPTED: ExitCode.INTERRUPTED,
    Code.INTERRUPTED_WRITING: ExitCode.INTERRUPTED,
}


#: Page warnings that mean the page was not read at all (its text, fields and outlines are missing) or
#: that what it held may be lost (a damaged PDF whose repair left the page without its content),
#: besides the ones of severity error (the engine stopped or overran on it).
LOST_PAGE_CODES = frozenset({Code.PAGE_NOT_READ, Code.PAGES_AFTER_NOT_READ,
                             # intake: a damaged PDF whose page content could not be loaded, or is gone
                             Code.PDF_CONTENT_LOST, Code.PDF_PAGE_CONTENT_GONE,
                             # an OFD file's pages past the ones shown are not read
                             Code.OFD_PAGES_CUT})


#: What an engine says about its reading of a page (inside :attr:`Code.ENGINE_NOTE`) that means the end of
#: the page's text may be missing: HunyuanOCR's answer was cut at the length limit.
CUT_READING_CODES = frozenset({Code.HUNYUAN_CUT, Code.HUNYUAN_CUT_AT_LIMIT})


def is_page_lost(warning: Diagnostic) -> bool:
    """Whether a page warning says the page (or the pages after it) could not be read, or that its content
    may be lost: a lost page, which a batch may never pass over in silence (an error line, exit status 1,
    a row in the export's Problems sheet and its status, a document note in the JSON; see
    :meth:`desktop.core.model.Document.lost_pages`)."""
    if warning.severity is Severity.ERROR or warning.code in LOST_PAGE_CODES:
        return True
    said = warning.params.get("detail") if warning.code is Code.ENGINE_NOTE else None
    return isinstance(said, Diagnostic) and said.code in CUT_READING_CODES


def exit_code_for(errors: Iterable[Diagnostic], *, any_read: bool) -> ExitCode:
    """The exit status of a batch from its document errors.

    Args:
        errors: the error of every document that failed (and any error of the run itself).
        any_read: at least one document was read.

    Returns:
        ``OK`` without errors; otherwise the highest status :data:`EXIT_CODES` gives them, where
        ``SOME_FAILED`` becomes ``NOTHING_DONE`` when nothing was read.
    """
    statuses = [EXIT_CODES.get(e.code, ExitCode.SOME_FAILED) for e in errors]
    if not statuses:
        return ExitCode.OK if any_read else ExitCode.NOTHING_DONE
    if not any_read:
        statuses = [ExitCode.NOTHING_DONE if s is ExitCode.SOME_FAILED else s for s in statuses]
    return max(statuses)
