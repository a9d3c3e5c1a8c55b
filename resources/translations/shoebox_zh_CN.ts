<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>About</name>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="144"/>
        <source>Offline document scanner: receipts, invoices and Chinese VAT invoices to checked fields.</source>
        <translation>离线单据扫描：把收据、发票和增值税发票读成经过核对的字段。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="146"/>
        <source>OCR engine</source>
        <translation>OCR 引擎</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="147"/>
        <source>Nothing leaves this computer.</source>
        <translation>任何数据都不会离开这台电脑。</translation>
    </message>
</context>
<context>
    <name>AboutDialog</name>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="164"/>
        <source>About Shoebox</source>
        <translation>关于 Shoebox</translation>
    </message>
</context>
<context>
    <name>AddController</name>
    <message>
        <location filename="../../desktop/gui/adding.py" line="77"/>
        <source>No documents found in %1</source>
        <translation>在 %1 中未找到单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/adding.py" line="121"/>
        <source>No recent files</source>
        <translation>没有最近的文件</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/adding.py" line="129"/>
        <source>Open documents</source>
        <translation>打开单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/adding.py" line="130"/>
        <source>Documents (%1)</source>
        <translation>单据 (%1)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/adding.py" line="130"/>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/adding.py" line="148"/>
        <source>The clipboard holds no image or file.</source>
        <translation>剪贴板中没有图片或文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/adding.py" line="161"/>
        <source>Paste</source>
        <translation>粘贴</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/adding.py" line="162"/>
        <source>The image could not be saved to %1.</source>
        <translation>无法将图片保存到 %1。</translation>
    </message>
</context>
<context>
    <name>DocumentPanel</name>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="61"/>
        <source>&amp;Type:</source>
        <translation>类型(&amp;T)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="65"/>
        <location filename="../../desktop/gui/docpanel.py" line="128"/>
        <source>Mark reviewed</source>
        <translation>标记为已审核</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="67"/>
        <source>Mark this document reviewed and go to the next one (Ctrl+Enter)</source>
        <translation>将此单据标记为已审核并转到下一张（Ctrl+Enter）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="85"/>
        <source>Fields</source>
        <translation>字段</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="86"/>
        <source>Page text</source>
        <translation>页面文字</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="90"/>
        <source>Task output</source>
        <translation>任务输出</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="107"/>
        <source>No document</source>
        <translation>没有单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="109"/>
        <source>Drop receipts, invoices or whole folders here, or use File ▸ Open (Ctrl+O).</source>
        <translation>将收据、发票或整个文件夹拖放到此处，或使用“文件 ▸ 打开”（Ctrl+O）。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="121"/>
        <source>Waiting to be read…</source>
        <translation>等待读取…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="121"/>
        <source>Reading…</source>
        <translation>读取中…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="124"/>
        <source>This file could not be read:
%1</source>
        <translation>无法读取此文件：
%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="128"/>
        <source>Reviewed ✓</source>
        <translation>已审核 ✓</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/docpanel.py" line="142"/>
        <source>%n field(s) to check</source>
        <translation>
            <numerusform>%n 个字段需要检查</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="144"/>
        <source>Every field checks out</source>
        <translation>所有字段均通过检查</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/docpanel.py" line="146"/>
        <source>Reviewed</source>
        <translation>已审核</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/docpanel.py" line="150"/>
        <source>(+%n more)</source>
        <translation>
            <numerusform>（另有 %n 条）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>DuplicateBanner</name>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="338"/>
        <source>Keep both</source>
        <translation>两张都保留</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="340"/>
        <source>It is a different document: keep it and stop marking it</source>
        <translation>这是另一张单据：保留它，不再标记</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="343"/>
        <source>Drop this one</source>
        <translation>删除这一张</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="345"/>
        <source>It was already claimed: remove this copy from the queue (the file stays)</source>
        <translation>已经报销过：把这一份从队列中移除（文件本身保留）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="370"/>
        <source>%1 (p. %2)</source>
        <translation>%1（第 %2 页）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="372"/>
        <source>%1 (p. %2–%3)</source>
        <translation>%1（第 %2–%3 页）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="374"/>
        <source>%1, row %2 of the queue</source>
        <translation>%1（队列第 %2 行）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="376"/>
        <source>%1, read before (no longer in the queue)</source>
        <translation>%1（之前已读过，已不在队列中）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="380"/>
        <source>Possible duplicate of %1: %2.</source>
        <translation>可能与 %1 重复：%2。</translation>
    </message>
</context>
<context>
    <name>EngineLabel</name>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="21"/>
        <source>OCR engine not started</source>
        <translation>OCR 引擎尚未启动</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="29"/>
        <source>Standard OCR on this computer</source>
        <translation>本机标准 OCR</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="32"/>
        <source>HunyuanOCR AI model on the processor</source>
        <translation>HunyuanOCR AI 模型（处理器）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="33"/>
        <source>HunyuanOCR AI model on the graphics card</source>
        <translation>HunyuanOCR AI 模型（显卡）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="35"/>
        <source>HunyuanOCR on the office server</source>
        <translation>办公室服务器上的 HunyuanOCR</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="52"/>
        <source>Starting: %1…</source>
        <translation>正在启动：%1…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="53"/>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="53"/>
        <source>Loading the OCR engine…</source>
        <translation>正在加载 OCR 引擎…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="56"/>
        <source>%1 · ready</source>
        <translation>%1 · 已就绪</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="58"/>
        <source>%1 – slow on the CPU</source>
        <translation>%1 – 在 CPU 上较慢</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="59"/>
        <source>Engine: %1</source>
        <translation>引擎：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="62"/>
        <source>OCR engine not available (details in the tooltip)</source>
        <translation>识别引擎不可用（详情见提示）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/engine_label.py" line="62"/>
        <source>OCR engine not available</source>
        <translation>识别引擎不可用</translation>
    </message>
</context>
<context>
    <name>ExportController</name>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="53"/>
        <location filename="../../desktop/gui/exporting.py" line="74"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="54"/>
        <source>No document is marked reviewed yet (Ctrl+Enter marks one).</source>
        <translation>还没有已审核的单据（按 Ctrl+Enter 标记）。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="55"/>
        <source>Select documents in the queue first.</source>
        <translation>请先在队列中选择单据。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="56"/>
        <source>Nothing has been read yet.</source>
        <translation>尚未读取任何单据。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/exporting.py" line="61"/>
        <source>Export %n document(s)</source>
        <translation>
            <numerusform>导出 %n 张单据</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="62"/>
        <source>Excel workbook (*.xlsx)</source>
        <translation>Excel 工作簿 (*.xlsx)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="62"/>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="62"/>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="75"/>
        <source>No document is marked reviewed yet (Ctrl+Enter marks one).

File &gt; Export all… (Ctrl+Shift+E) exports every document read, reviewed or not.</source>
        <translation>还没有已审核的单据（按 Ctrl+Enter 标记）。

“文件 &gt; 全部导出…”（Ctrl+Shift+E）会导出所有已读取的单据，无论是否已审核。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="77"/>
        <source>Export all…</source>
        <translation>全部导出…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="96"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/exporting.py" line="97"/>
        <source>%1 could not be written:
%2</source>
        <translation>无法写入 %1：
%2</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/exporting.py" line="102"/>
        <source>Exported %n document(s) to %1</source>
        <translation>
            <numerusform>已将 %n 张单据导出到 %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>FieldEdit</name>
    <message>
        <location filename="../../desktop/gui/form.py" line="49"/>
        <source>YYYY-MM-DD</source>
        <translation>年-月-日</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="49"/>
        <source>HH:MM</source>
        <translation>时:分</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="50"/>
        <source>amount, e.g. 12.50</source>
        <translation>金额，如 12.50</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="115"/>
        <source>Pick a date</source>
        <translation>选择日期</translation>
    </message>
</context>
<context>
    <name>FieldForm</name>
    <message>
        <location filename="../../desktop/gui/form.py" line="508"/>
        <source>Drop receipts and invoices here, or use File ▸ Open.</source>
        <translation>将收据和发票拖放到此处，或使用“文件 ▸ 打开”。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="531"/>
        <source>This file could not be read:
%1</source>
        <translation>无法读取此文件：
%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="537"/>
        <source>Unknown document type %1</source>
        <translation>未知单据类型 %1</translation>
    </message>
</context>
<context>
    <name>FieldRow</name>
    <message>
        <location filename="../../desktop/gui/form.py" line="366"/>
        <source>As printed: %1</source>
        <translation>原文：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="368"/>
        <source>Confidence: %1</source>
        <translation>置信度：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="383"/>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="384"/>
        <source>Not found on the page, and this document needs it: type it in</source>
        <translation>页面上未找到，但此单据需要该项：请手动填写</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="392"/>
        <source>check</source>
        <translation>核对</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="393"/>
        <source>Not sure enough to pass unchecked: check it</source>
        <translation>识别结果不够确定，不能不经核对：请核对</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="407"/>
        <source>you</source>
        <translation>手填</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="415"/>
        <source>Read on the page and confirmed by the vendor memory: %1 taught it (vendor %2 recognised, %3 sure)</source>
        <translation>页面读取，并经商家记忆确认：由 %1 学到（识别为商家 %2，把握 %3）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="418"/>
        <source>From the vendor memory: %1 taught it (vendor %2 recognised, %3 sure)</source>
        <translation>来自商家记忆：由 %1 学到（识别为商家 %2，把握 %3）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="419"/>
        <source>an earlier document</source>
        <translation>之前的一张单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="425"/>
        <source>memory</source>
        <translation>记忆</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="428"/>
        <source>Found where %1 had it (vendor memory)</source>
        <translation>在 %1 上的同一位置找到（商家记忆）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="432"/>
        <source>The vendor memory agrees: %1 taught it</source>
        <translation>商家记忆与之一致：由 %1 学到</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="438"/>
        <location filename="../../desktop/gui/form.py" line="439"/>
        <source>QR</source>
        <translation>二维码</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="438"/>
        <source>From the invoice&apos;s QR code (it matches the printed value)</source>
        <translation>来自发票二维码（与票面一致）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="439"/>
        <source>From the invoice&apos;s QR code</source>
        <translation>来自发票二维码</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="442"/>
        <location filename="../../desktop/gui/form.py" line="443"/>
        <source>e-invoice XML</source>
        <translation>电子发票 XML</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="442"/>
        <source>From the e-invoice&apos;s own data (XML); the page shows the same value</source>
        <translation>取自电子发票自带的数据（XML），页面上的值与之相同</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="443"/>
        <source>From the e-invoice&apos;s own data (XML)</source>
        <translation>取自电子发票自带的数据（XML）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="445"/>
        <source>OFD text</source>
        <translation>OFD 文字</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="445"/>
        <source>From the text of the OFD file&apos;s page (no OCR needed)</source>
        <translation>取自 OFD 文件页面中的文字（无需 OCR）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="447"/>
        <source>From the PDF&apos;s text layer (no OCR needed)</source>
        <translation>来自 PDF 文本层（无需 OCR）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="447"/>
        <source>PDF text</source>
        <translation>PDF 文字</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="449"/>
        <source>AI</source>
        <translation>AI</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="449"/>
        <source>Read by the HunyuanOCR model</source>
        <translation>由 HunyuanOCR 模型读取</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="451"/>
        <source>inferred</source>
        <translation>推断</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="451"/>
        <source>Not printed on the page: inferred from what the page shows (the country of its address, tax ID or phone number)</source>
        <translation>页面上未印有：根据页面内容推断（地址、税号或电话号码所属的国家或地区）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="453"/>
        <source>OCR</source>
        <translation>OCR</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="453"/>
        <source>Read by OCR from the page image</source>
        <translation>由 OCR 从页面图像识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="407"/>
        <source>Entered by you</source>
        <translation>由您填写</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="388"/>
        <source>Not found on the page</source>
        <translation>页面上未找到</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="311"/>
        <source>Session</source>
        <extracomment>The window&apos;s size on a first start, in device-independent pixels, when the screen has room.</extracomment>
        <translation>会话</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="181"/>
        <source>Page</source>
        <translation>页面</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="199"/>
        <source>%v of %m files</source>
        <translation>%v / %m 个文件</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="209"/>
        <source>Stop reading after the current page</source>
        <translation>读完当前页后停止</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="536"/>
        <source>Settings could not be saved: %1</source>
        <translation>无法保存设置：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="374"/>
        <source>Drop files here</source>
        <translation>将文件拖放到此处</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="389"/>
        <source>Reading failed: %1</source>
        <translation>读取失败：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="408"/>
        <source>Translate the text of the document into English or Chinese</source>
        <translation>把单据的文字翻译成英文或中文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="414"/>
        <source>Zoom: 100% is the size of the paper</source>
        <translation>缩放：100% 为纸张的实际大小</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="415"/>
        <source>Zoom: 100% shows one pixel of the image per pixel of the screen</source>
        <translation>缩放：100% 时图像的一个像素对应屏幕的一个像素</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="440"/>
        <source>%1 is no longer in the queue (it was confirmed earlier)</source>
        <translation>%1 已不在队列中（之前已确认）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="561"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="562"/>
        <source>The new language is used the next time Shoebox starts.</source>
        <translation>新语言将在下次启动 Shoebox 时生效。</translation>
    </message>
</context>
<context>
    <name>Notes</name>
    <message>
        <location filename="../../desktop/gui/notes.py" line="32"/>
        <source>Page %1: %2</source>
        <translation>第 %1 页：%2</translation>
    </message>
</context>
<context>
    <name>PageController</name>
    <message>
        <location filename="../../desktop/gui/pages.py" line="129"/>
        <source>The page could not be shown: %1</source>
        <translation>无法显示此页：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/pages.py" line="208"/>
        <source>Page %1 of %2</source>
        <translation>第 %1 / %2 页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/pages.py" line="231"/>
        <source>Click a field in the form first, then a line on the page to copy its text into it.</source>
        <translation>先点击表单中的字段，再点击页面上的文字行，即可将文字填入该字段。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/pages.py" line="236"/>
        <source>Put “%1” into %2</source>
        <translation>将“%1”填入 %2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/pages.py" line="239"/>
        <source>Copy text</source>
        <translation>复制文字</translation>
    </message>
</context>
<context>
    <name>ProfileEditor</name>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="46"/>
        <source>Edit vendor</source>
        <translation>编辑商家</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="49"/>
        <source>&amp;Name:</source>
        <translation>名称(&amp;N)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="49"/>
        <source>&amp;Address:</source>
        <translation>地址(&amp;A)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="50"/>
        <source>&amp;Tax ID:</source>
        <translation>税号(&amp;T)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="50"/>
        <source>&amp;Currency:</source>
        <translation>币种(&amp;C)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="58"/>
        <source>(as detected)</source>
        <translation>（按识别结果）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="63"/>
        <source>Document &amp;type:</source>
        <translation>单据类型(&amp;T)：</translation>
    </message>
</context>
<context>
    <name>QAbstractFileIconProvider</name>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="20"/>
        <source>Alias</source>
        <translation>别名</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="21"/>
        <source>Drive</source>
        <translation>驱动器</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="22"/>
        <source>File</source>
        <translation>文件</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="23"/>
        <source>File Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="24"/>
        <source>Folder</source>
        <translation>文件夹</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="25"/>
        <source>Shortcut</source>
        <translation>快捷方式</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="26"/>
        <source>Unknown</source>
        <translation>未知</translation>
    </message>
</context>
<context>
    <name>QFileDialog</name>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="18"/>
        <source>&amp;Look in:</source>
        <translation>查找范围(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="19"/>
        <source>Files of &amp;type:</source>
        <translation>文件类型(&amp;T)：</translation>
    </message>
</context>
<context>
    <name>QFileSystemModel</name>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="27"/>
        <source>%1 TB</source>
        <translation>%1 TB</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="28"/>
        <source>%1 GB</source>
        <translation>%1 GB</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="29"/>
        <source>%1 MB</source>
        <translation>%1 MB</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="30"/>
        <source>%1 KB</source>
        <translation>%1 KB</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="31"/>
        <source>%1 bytes</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="32"/>
        <source>%1 byte(s)</source>
        <translation>%1 字节</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/qt_strings.py" line="33"/>
        <source>&lt;b&gt;The name &quot;%1&quot; can not be used.&lt;/b&gt;&lt;p&gt;Try using another name, with fewer characters or no punctuations marks.</source>
        <translation>&lt;b&gt;无法使用名称“%1”。&lt;/b&gt;&lt;p&gt;请换一个名称：少用几个字符，或不用标点符号。</translation>
    </message>
</context>
<context>
    <name>QueueEntry</name>
    <message>
        <location filename="../../desktop/gui/queue.py" line="106"/>
        <source>%1 (p. %2–%3)</source>
        <translation>%1（第 %2–%3 页）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="109"/>
        <source>%1 (p. %2)</source>
        <translation>%1（第 %2 页）</translation>
    </message>
</context>
<context>
    <name>QueueModel</name>
    <message>
        <location filename="../../desktop/gui/queue.py" line="163"/>
        <source>Document</source>
        <translation>单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="163"/>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="163"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="163"/>
        <source>Check</source>
        <translation>待查</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="171"/>
        <source>Queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="173"/>
        <source>Reading</source>
        <translation>读取中</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="176"/>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="181"/>
        <source>possible duplicate</source>
        <translation>可能重复</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="183"/>
        <source>Reviewed</source>
        <translation>已审核</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="185"/>
        <source>Checks out, not yet reviewed</source>
        <translation>字段均通过检查，尚未审核</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="186"/>
        <source>Needs review</source>
        <translation>待审核</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/queue.py" line="240"/>
        <source>%n field(s) to check</source>
        <translation>
            <numerusform>%n 个字段需要检查</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="165"/>
        <source>Fields to check (a failed check, an uncertain value or an empty key field)</source>
        <translation>需要检查的字段（检查未通过、识别不确定或必填字段为空）</translation>
    </message>
</context>
<context>
    <name>ReadWorker</name>
    <message>
        <location filename="../../desktop/gui/worker.py" line="170"/>
        <source>The OCR engine could not start: %1</source>
        <extracomment>Cancel lets the page in flight finish for this long before the engine&apos;s worker process is stopped (PP-OCR reads a receipt in 1-2 s; a longer page is abandoned rather than making the clerk wait).</extracomment>
        <translation>OCR 引擎无法启动：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/worker.py" line="267"/>
        <source>Reading page %1 again</source>
        <translation>正在重新识别第 %1 页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/worker.py" line="300"/>
        <source>HunyuanOCR is running on the CPU: expect minutes per page. Choose PP-OCR in Settings for fast reading on this computer.</source>
        <translation>HunyuanOCR 正在 CPU 上运行：每页需要数分钟。如需在这台电脑上快速识别，请在设置中选择 PP-OCR。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/worker.py" line="245"/>
        <source>Office server not reachable: %1</source>
        <translation>无法连接办公室服务器：%1</translation>
    </message>
</context>
<context>
    <name>ReadingController</name>
    <message>
        <location filename="../../desktop/gui/reading.py" line="62"/>
        <source>not started</source>
        <translation>未启动</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="118"/>
        <location filename="../../desktop/gui/reading.py" line="153"/>
        <source>Reading is not available in this installation (%1)</source>
        <translation>此安装无法读取单据（%1）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="138"/>
        <source>Cancelling after the current page…</source>
        <translation>读完当前页后取消…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="152"/>
        <source>Read again</source>
        <translation>重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="155"/>
        <source>reading page %1 again…</source>
        <translation>正在重新识别第 %1 页…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="161"/>
        <source>Convert to Markdown</source>
        <translation>转换为 Markdown</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="162"/>
        <source>Extract tables</source>
        <translation>提取表格</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="163"/>
        <source>Translate to English</source>
        <translation>翻译成英文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="164"/>
        <source>Translate to Chinese</source>
        <translation>翻译成中文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="170"/>
        <source>Waiting for the OCR engine to start…</source>
        <translation>正在等待 OCR 引擎启动…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="171"/>
        <location filename="../../desktop/gui/reading.py" line="190"/>
        <source>Needs the HunyuanOCR engine on a GPU; see Settings.</source>
        <translation>需要在 GPU 上运行的 HunyuanOCR 引擎；请参阅“设置”。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="174"/>
        <source>Select a document that has been read first.</source>
        <translation>请先选择一个已识别的文档。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="176"/>
        <source>This document is being read; wait until it is done.</source>
        <translation>正在识别此文档，请等待完成。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="218"/>
        <source>Restarting the OCR engine…</source>
        <translation>正在重新启动 OCR 引擎…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="236"/>
        <source>%1 done: %2</source>
        <translation>%1 完成：%2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="242"/>
        <source>%1 failed: %2</source>
        <translation>%1 失败：%2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="273"/>
        <source>reading…</source>
        <translation>读取中…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="276"/>
        <source>page %1 of %2</source>
        <translation>第 %1 / %2 页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="289"/>
        <source>Nothing was read from this file.</source>
        <translation>未从此文件读取到内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="307"/>
        <source>Reading again failed: %1</source>
        <translation>重新识别失败：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="315"/>
        <location filename="../../desktop/gui/reading.py" line="317"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/reading.py" line="336"/>
        <source>Reading finished. %n possible duplicate(s) marked: %1</source>
        <translation>
            <numerusform>读取完成。已标记 %n 个可能重复的文档：%1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reading.py" line="339"/>
        <source>Reading finished.</source>
        <translation>读取完成。</translation>
    </message>
</context>
<context>
    <name>ReviewController</name>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="88"/>
        <source>Edit %1</source>
        <translation>编辑 %1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="99"/>
        <source>Change type</source>
        <translation>更改类型</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="100"/>
        <source>The fields could not be read again: %1</source>
        <translation>无法重新提取字段：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="103"/>
        <source>Change document type</source>
        <translation>更改单据类型</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="121"/>
        <source>Rotate and read again</source>
        <translation>旋转并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="137"/>
        <source>Split document</source>
        <translation>拆分单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="160"/>
        <source>Merge documents</source>
        <translation>合并单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="179"/>
        <location filename="../../desktop/gui/reviewing.py" line="202"/>
        <location filename="../../desktop/gui/reviewing.py" line="207"/>
        <source>Mark reviewed</source>
        <translation>标记为已审核</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="179"/>
        <source>Mark as needing review</source>
        <translation>标记为待审核</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/reviewing.py" line="203"/>
        <source>%n field(s) are still marked to check: %1. Mark reviewed anyway?</source>
        <translation>
            <numerusform>还有 %n 个字段标记为待核对：%1。仍要标记为已审核吗？</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="206"/>
        <source>Go to %1</source>
        <translation>转到 %1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="214"/>
        <source>The vendor memory learns %1 from this document only if you tick the box.</source>
        <translation>只有勾选下面的方框，商家记忆才会从这张单据学习 %1。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="216"/>
        <source>I checked them: they are right</source>
        <translation>我已核对，这些值无误</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="252"/>
        <source>Every document is reviewed.</source>
        <translation>所有单据均已审核。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="267"/>
        <source>Keep both</source>
        <translation>两张都保留</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/reviewing.py" line="281"/>
        <source>Remove from queue</source>
        <translation>从队列中移除</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/reviewing.py" line="282"/>
        <source>%n of the documents have your edits or are reviewed. Remove them anyway? (The files themselves are not touched.)</source>
        <translation>
            <numerusform>其中 %n 张单据含有您的修改或已审核。仍要移除吗？（文件本身不会被改动。）</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="37"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="42"/>
        <source>Automatic (GPU model when available, else PP-OCR)</source>
        <translation>自动（有 GPU 模型时使用，否则使用 PP-OCR）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="43"/>
        <source>PP-OCR on the CPU</source>
        <translation>PP-OCR（CPU）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="44"/>
        <source>HunyuanOCR on the GPU</source>
        <translation>HunyuanOCR（GPU）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="47"/>
        <source>OCR &amp;engine:</source>
        <translation>OCR 引擎(&amp;E)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="71"/>
        <source>Search the usual places</source>
        <translation>在常用位置查找</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="72"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="77"/>
        <source>HunyuanOCR &amp;model folder:</source>
        <translation>HunyuanOCR 模型文件夹(&amp;M)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="84"/>
        <source>Detect automatically</source>
        <translation>自动识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="88"/>
        <source>Default &amp;document type:</source>
        <translation>默认单据类型(&amp;D)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="91"/>
        <source>From the document</source>
        <translation>根据单据判断</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="92"/>
        <source>Day first (31/12/2024)</source>
        <translation>日在前 (31/12/2024)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="93"/>
        <source>Month first (12/31/2024)</source>
        <translation>月在前 (12/31/2024)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="95"/>
        <source>Ambiguous &amp;dates:</source>
        <translation>含糊日期(&amp;D)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="98"/>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="102"/>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="103"/>
        <source>A new language or engine choice applies to documents read from now on; the language changes after a restart.</source>
        <translation>新的引擎选择对之后读取的单据生效；语言在重新启动后生效。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="121"/>
        <source>HunyuanOCR model folder</source>
        <translation>HunyuanOCR 模型文件夹</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="45"/>
        <source>HunyuanOCR on the office server</source>
        <translation>办公室服务器上的 HunyuanOCR</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="51"/>
        <source>Off (e.g. http://gpu-box:8000/v1)</source>
        <translation>不使用（例如 http://gpu-box:8000/v1）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="52"/>
        <source>Office &amp;server:</source>
        <translation>办公室服务器(&amp;S)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="55"/>
        <source>None</source>
        <translation>无</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="56"/>
        <source>Server API &amp;key:</source>
        <translation>服务器 API 密钥(&amp;K)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="60"/>
        <source>Pages sent at &amp;once:</source>
        <translation>同时发送的页数(&amp;O)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="61"/>
        <source>Read on the CPU while the server cannot be reached</source>
        <translation>服务器无法连接时在 CPU 上识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="64"/>
        <source>Allow a server outside the office network</source>
        <translation>允许使用办公室网络以外的服务器</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="66"/>
        <source>Documents are sent to this address. Leave unticked unless the server is yours and the connection is protected.</source>
        <translation>单据会发送到这个地址。除非服务器是你们自己的且连接受保护，否则不要勾选。</translation>
    </message>
</context>
<context>
    <name>TaskOutputPanel</name>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="121"/>
        <source>Source</source>
        <translation>源代码</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="122"/>
        <source>Show the Markdown or HTML as written instead of formatted</source>
        <translation>显示 Markdown 或 HTML 原文，而不是排版后的效果</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="124"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="126"/>
        <source>Copy the output (Markdown or HTML as written) to the clipboard</source>
        <translation>将输出（Markdown 或 HTML 原文）复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="128"/>
        <source>Save as…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="149"/>
        <source>Markdown</source>
        <translation>Markdown</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="150"/>
        <source>Tables (HTML)</source>
        <translation>表格（HTML）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="151"/>
        <source>English translation</source>
        <translation>英文译文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="152"/>
        <source>Chinese translation</source>
        <translation>中文译文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="196"/>
        <source>No task output yet. The Document menu converts a document to Markdown, extracts its tables as HTML or translates it (with the HunyuanOCR engine on a GPU).</source>
        <translation>尚无任务输出。“文档”菜单可将文档转换为 Markdown、将表格提取为 HTML 或翻译文档（需要在 GPU 上运行的 HunyuanOCR 引擎）。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="203"/>
        <source>Not every page could be processed: %1</source>
        <translation>部分页面未能处理：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="216"/>
        <source>Copied to the clipboard.</source>
        <translation>已复制到剪贴板。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="229"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="229"/>
        <source>HTML (*.html)</source>
        <translation>HTML (*.html)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="229"/>
        <source>Text (*.txt)</source>
        <translation>文本 (*.txt)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="231"/>
        <source>Save task output</source>
        <translation>保存任务输出</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="257"/>
        <source>Save failed</source>
        <translation>保存失败</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="258"/>
        <source>%1 could not be written:
%2</source>
        <translation>无法写入 %1：
%2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="260"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
</context>
<context>
    <name>VendorsDialog</name>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="90"/>
        <location filename="../../desktop/gui/vendors.py" line="187"/>
        <source>Vendors</source>
        <translation>商家</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="94"/>
        <source>What Shoebox learned from the documents you confirmed. A vendor&apos;s values fill in later documents from the same vendor; everything stays on this computer.</source>
        <translation>Shoebox 从您确认过的单据中学到的内容。同一商家以后的单据会自动填入这些值；所有数据都只保存在这台电脑上。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="100"/>
        <source>Name</source>
        <translation>名称</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="100"/>
        <source>Address</source>
        <translation>地址</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="100"/>
        <source>Documents</source>
        <translation>单据数</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="101"/>
        <source>Last seen</source>
        <translation>最近一次</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="113"/>
        <source>&amp;Rename…</source>
        <translation>重命名(&amp;R)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="114"/>
        <source>&amp;Edit…</source>
        <translation>编辑(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="115"/>
        <source>&amp;Merge</source>
        <translation>合并(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="116"/>
        <source>&amp;Delete…</source>
        <translation>删除(&amp;D)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="118"/>
        <source>&amp;Import…</source>
        <translation>导入(&amp;I)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="119"/>
        <source>E&amp;xport…</source>
        <translation>导出(&amp;X)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="120"/>
        <source>Close</source>
        <translation>关闭</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="152"/>
        <source>%n vendor(s)</source>
        <translation>
            <numerusform>%n 个商家</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="196"/>
        <source>Renamed to %1</source>
        <translation>已重命名为 %1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="204"/>
        <source>Rename vendor</source>
        <translation>重命名商家</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="204"/>
        <source>Vendor name:</source>
        <translation>商家名称：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="214"/>
        <source>Vendor saved</source>
        <translation>商家已保存</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="239"/>
        <source>%n vendor(s) merged</source>
        <translation>
            <numerusform>已合并 %n 个商家</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="247"/>
        <source>Merge vendors</source>
        <translation>合并商家</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="248"/>
        <source>These vendors become one. Keep the name:</source>
        <translation>这些商家将合并为一个。保留名称：</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="258"/>
        <source>%n vendor(s) deleted</source>
        <translation>
            <numerusform>已删除 %n 个商家</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="265"/>
        <source>Delete vendors</source>
        <translation>删除商家</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="266"/>
        <source>Forget %n vendor(s) and what their documents taught? The documents themselves stay.</source>
        <translation>
            <numerusform>忘记这 %n 个商家以及从其单据学到的内容？单据本身保留。</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="277"/>
        <source>Could not write %1: %2</source>
        <translation>无法写入 %1：%2</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="280"/>
        <source>%n vendor(s) written to %1</source>
        <translation>
            <numerusform>已将 %n 个商家写入 %1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="284"/>
        <source>Export vendors</source>
        <translation>导出商家</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="285"/>
        <location filename="../../desktop/gui/vendors.py" line="306"/>
        <source>Vendor list (*.json)</source>
        <translation>商家列表 (*.json)</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="302"/>
        <source>%n document(s) learned from %1</source>
        <translation>
            <numerusform>从 %1 学到了 %n 张单据</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/vendors.py" line="306"/>
        <source>Import vendors</source>
        <translation>导入商家</translation>
    </message>
</context>
<context>
    <name>WindowActions</name>
    <message>
        <location filename="../../desktop/gui/actions.py" line="84"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="85"/>
        <source>Add receipts and invoices to the queue</source>
        <translation>将收据和发票加入队列</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="86"/>
        <source>&amp;Paste image</source>
        <translation>粘贴图片(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="87"/>
        <source>Add the image on the clipboard to the queue</source>
        <translation>将剪贴板中的图片加入队列</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="88"/>
        <source>&amp;Export reviewed…</source>
        <translation>导出已审核(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="89"/>
        <source>Save the reviewed documents as Excel, JSON or CSV</source>
        <translation>将已审核的单据保存为 Excel、JSON 或 CSV</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="90"/>
        <source>Export &amp;all…</source>
        <translation>全部导出(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="91"/>
        <source>Export &amp;selected…</source>
        <translation>导出所选(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="92"/>
        <source>&amp;Remove from queue</source>
        <translation>从队列中移除(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="96"/>
        <source>Read &amp;queued files</source>
        <translation>读取排队的文件(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="97"/>
        <source>Read every file still waiting in the queue</source>
        <translation>读取队列中所有等待的文件</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="98"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="99"/>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="101"/>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="107"/>
        <source>Mark &amp;reviewed</source>
        <translation>标记为已审核(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="109"/>
        <source>Mark this document reviewed and go to the next one not yet reviewed</source>
        <translation>将此单据标记为已审核并转到下一张尚未审核的单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="110"/>
        <source>&amp;Next not yet reviewed</source>
        <translation>下一张尚未审核(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="111"/>
        <source>&amp;Cancel reading</source>
        <translation>取消读取(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="112"/>
        <source>Stop reading after the current page</source>
        <translation>读完当前页后停止</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="115"/>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="116"/>
        <source>&amp;Vendors…</source>
        <translation>商家(&amp;V)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="117"/>
        <source>What Shoebox learned about your vendors: rename, merge, edit, share</source>
        <translation>Shoebox 学到的商家信息：重命名、合并、编辑、共享</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="119"/>
        <source>&amp;About Shoebox</source>
        <translation>关于 Shoebox(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="120"/>
        <source>&amp;Full screen</source>
        <translation>全屏(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="123"/>
        <source>Previous page</source>
        <translation>上一页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="124"/>
        <source>Next page</source>
        <translation>下一页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="125"/>
        <source>Zoom &amp;in</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="126"/>
        <source>Zoom &amp;out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="127"/>
        <source>&amp;Actual size (100%)</source>
        <translation>实际大小(&amp;A) (100%)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="128"/>
        <source>Fit &amp;width</source>
        <translation>适合宽度(&amp;W)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="129"/>
        <source>Fit &amp;page</source>
        <translation>适合页面(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="130"/>
        <source>Show recognised &amp;lines</source>
        <translation>显示识别的文字行(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="131"/>
        <source>Outline the recognised lines on the page</source>
        <translation>在页面上框出识别的文字行</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="134"/>
        <source>Rotate left and read again</source>
        <translation>向左旋转并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="135"/>
        <source>Turn this page 90° anticlockwise and read it again</source>
        <translation>将此页逆时针旋转 90° 并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="136"/>
        <source>Rotate right and read again</source>
        <translation>向右旋转并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="137"/>
        <source>Turn this page 90° clockwise and read it again</source>
        <translation>将此页顺时针旋转 90° 并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="138"/>
        <source>&amp;Split document at this page</source>
        <translation>在此页拆分单据(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="139"/>
        <source>Make the page shown the first page of a new document</source>
        <translation>将当前显示的页作为新单据的第一页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="140"/>
        <source>&amp;Merge with next document</source>
        <translation>与下一份单据合并(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="141"/>
        <source>Join the next document of the same file to this one</source>
        <translation>把同一文件中的下一份单据并入本单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="149"/>
        <source>Convert the whole document to Markdown (tables as HTML)</source>
        <translation>将整个文档转换为 Markdown（表格为 HTML）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="150"/>
        <source>Extract the tables as HTML (exported as an extra Excel sheet)</source>
        <translation>将表格提取为 HTML（导出时成为额外的 Excel 工作表）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="151"/>
        <source>Translate the text of the document into English</source>
        <translation>将文档文字翻译成英文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="152"/>
        <source>Translate the text of the document into Chinese</source>
        <translation>将文档文字翻译成中文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="155"/>
        <source>Convert to &amp;Markdown</source>
        <translation>转换为 &amp;Markdown</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="156"/>
        <source>Extract &amp;tables (HTML)</source>
        <translation>提取表格(&amp;T)（HTML）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="157"/>
        <source>Translate to &amp;English</source>
        <translation>翻译成英文(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="158"/>
        <source>Translate to &amp;Chinese</source>
        <translation>翻译成中文(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="168"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="170"/>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="178"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="186"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="194"/>
        <source>&amp;Document</source>
        <translation>文档(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="199"/>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="201"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="203"/>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="210"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="216"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="225"/>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="225"/>
        <source>Paste</source>
        <translation>粘贴</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="226"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="226"/>
        <source>Reviewed</source>
        <translation>已审核</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="227"/>
        <source>Next</source>
        <translation>下一张</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="227"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="228"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="231"/>
        <source>Document tasks</source>
        <translation>文档任务</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="236"/>
        <source>Markdown</source>
        <translation>Markdown</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="236"/>
        <source>Tables</source>
        <translation>表格</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/actions.py" line="243"/>
        <source>Translate document</source>
        <translation>翻译单据</translation>
    </message>
</context>
</TS>
