<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="zh_CN">
<context>
    <name>FieldEdit</name>
    <message>
        <location filename="../../desktop/gui/form.py" line="75"/>
        <source>Pick a date</source>
        <translation>选择日期</translation>
    </message>
</context>
<context>
    <name>FieldForm</name>
    <message>
        <location filename="../../desktop/gui/form.py" line="264"/>
        <source>Drop receipts and invoices here, or use File ▸ Open.</source>
        <translation>将收据和发票拖放到此处，或使用“文件 ▸ 打开”。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="285"/>
        <source>This file could not be read:
%1</source>
        <translation>无法读取此文件：
%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="290"/>
        <source>Unknown document type %1</source>
        <translation>未知单据类型 %1</translation>
    </message>
</context>
<context>
    <name>FieldRow</name>
    <message>
        <location filename="../../desktop/gui/form.py" line="164"/>
        <source>As printed: %1</source>
        <translation>原文：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="166"/>
        <source>Confidence: %1</source>
        <translation>置信度：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="179"/>
        <source>empty</source>
        <translation>空</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="180"/>
        <source>Not found on the page, and this document needs it: type it in</source>
        <translation>页面上未找到，但此单据需要该项：请手动填写</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="197"/>
        <source>you</source>
        <translation>手填</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="200"/>
        <location filename="../../desktop/gui/form.py" line="201"/>
        <source>QR</source>
        <translation>二维码</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="200"/>
        <source>From the invoice&apos;s QR code (it matches the printed value)</source>
        <translation>来自发票二维码（与票面一致）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="201"/>
        <source>From the invoice&apos;s QR code</source>
        <translation>来自发票二维码</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="204"/>
        <location filename="../../desktop/gui/form.py" line="205"/>
        <source>e-invoice XML</source>
        <translation>电子发票 XML</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="204"/>
        <source>From the e-invoice&apos;s own data (XML); the page shows the same value</source>
        <translation>取自电子发票自带的数据（XML），页面上的值与之相同</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="205"/>
        <source>From the e-invoice&apos;s own data (XML)</source>
        <translation>取自电子发票自带的数据（XML）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="207"/>
        <source>OFD text</source>
        <translation>OFD 文字</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="207"/>
        <source>From the text of the OFD file&apos;s page (no OCR needed)</source>
        <translation>取自 OFD 文件页面中的文字（无需 OCR）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="209"/>
        <source>From the PDF&apos;s text layer (no OCR needed)</source>
        <translation>来自 PDF 文本层（无需 OCR）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="209"/>
        <source>PDF text</source>
        <translation>PDF 文字</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="211"/>
        <source>AI</source>
        <translation>AI</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="211"/>
        <source>Read by the HunyuanOCR model</source>
        <translation>由 HunyuanOCR 模型读取</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="212"/>
        <source>OCR</source>
        <translation>OCR</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="212"/>
        <source>Read by OCR from the page image</source>
        <translation>由 OCR 从页面图像识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="197"/>
        <source>Entered by you</source>
        <translation>由您填写</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/form.py" line="184"/>
        <source>Not found on the page</source>
        <translation>页面上未找到</translation>
    </message>
</context>
<context>
    <name>MainWindow</name>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="0"/>
        <source>&amp;Split document at this page</source>
        <translation>在此页拆分单据(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="0"/>
        <source>Make the page shown the first page of a new document</source>
        <translation>将当前显示的页作为新单据的第一页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="0"/>
        <source>&amp;Merge with next document</source>
        <translation>与下一份单据合并(&amp;M)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="0"/>
        <source>Join the next document of the same file to this one</source>
        <translation>把同一文件中的下一份单据并入本单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="0"/>
        <source>Session</source>
        <translation>会话</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="0"/>
        <source>Split document</source>
        <translation>拆分单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="0"/>
        <source>Merge documents</source>
        <translation>合并单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="161"/>
        <source>not started</source>
        <translation>未启动</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="244"/>
        <source>Page</source>
        <translation>页面</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="276"/>
        <source>&amp;Type:</source>
        <translation>类型(&amp;T)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="280"/>
        <location filename="../../desktop/gui/mainwindow.py" line="1014"/>
        <location filename="../../desktop/gui/mainwindow.py" line="1253"/>
        <source>Mark reviewed</source>
        <translation>标记为已审核</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="282"/>
        <source>Mark this document reviewed and go to the next one (Ctrl+Enter)</source>
        <translation>将此单据标记为已审核并转到下一张（Ctrl+Enter）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="301"/>
        <source>Fields</source>
        <translation>字段</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="302"/>
        <source>Page text</source>
        <translation>页面文字</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="306"/>
        <source>Task output</source>
        <translation>任务输出</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="320"/>
        <source>OCR engine not started</source>
        <translation>OCR 引擎未启动</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="323"/>
        <source>%v of %m files</source>
        <translation>%v / %m 个文件</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="333"/>
        <location filename="../../desktop/gui/mainwindow.py" line="381"/>
        <source>Stop reading after the current page</source>
        <translation>读完当前页后停止</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="353"/>
        <source>&amp;Open…</source>
        <translation>打开(&amp;O)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="354"/>
        <source>Add receipts and invoices to the queue</source>
        <translation>将收据和发票加入队列</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="355"/>
        <source>&amp;Paste image</source>
        <translation>粘贴图片(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="356"/>
        <source>Add the image on the clipboard to the queue</source>
        <translation>将剪贴板中的图片加入队列</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="357"/>
        <source>&amp;Export reviewed…</source>
        <translation>导出已审核(&amp;E)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="358"/>
        <source>Save the reviewed documents as Excel, JSON or CSV</source>
        <translation>将已审核的单据保存为 Excel、JSON 或 CSV</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="359"/>
        <source>Export &amp;all…</source>
        <translation>全部导出(&amp;A)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="360"/>
        <source>Export &amp;selected…</source>
        <translation>导出所选(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="361"/>
        <source>&amp;Remove from queue</source>
        <translation>从队列中移除(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="365"/>
        <source>Read &amp;queued files</source>
        <translation>读取排队的文件(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="366"/>
        <source>Read every file still waiting in the queue</source>
        <translation>读取队列中所有等待的文件</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="367"/>
        <source>&amp;Quit</source>
        <translation>退出(&amp;Q)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="368"/>
        <source>&amp;Undo</source>
        <translation>撤销(&amp;U)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="370"/>
        <source>&amp;Redo</source>
        <translation>重做(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="376"/>
        <source>Mark &amp;reviewed</source>
        <translation>标记为已审核(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="378"/>
        <source>Mark this document reviewed and go to the next one that needs review</source>
        <translation>将此单据标记为已审核并转到下一张待审核单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="379"/>
        <source>&amp;Next needing review</source>
        <translation>下一张待审核(&amp;N)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="380"/>
        <source>&amp;Cancel reading</source>
        <translation>取消读取(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="384"/>
        <source>&amp;Settings…</source>
        <translation>设置(&amp;S)…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="386"/>
        <source>&amp;About Shoebox</source>
        <translation>关于 Shoebox(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="388"/>
        <source>&amp;Full screen</source>
        <translation>全屏(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="391"/>
        <source>Previous page</source>
        <translation>上一页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="392"/>
        <source>Next page</source>
        <translation>下一页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="393"/>
        <source>Zoom &amp;in</source>
        <translation>放大(&amp;I)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="394"/>
        <source>Zoom &amp;out</source>
        <translation>缩小(&amp;O)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="396"/>
        <source>&amp;Actual pixels (100%)</source>
        <translation>实际像素 (100%)(&amp;A)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="397"/>
        <source>Fit &amp;width</source>
        <translation>适合宽度(&amp;W)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="398"/>
        <source>Fit &amp;page</source>
        <translation>适合页面(&amp;P)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="399"/>
        <source>Show recognised &amp;lines</source>
        <translation>显示识别的文字行(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="400"/>
        <source>Outline the recognised lines on the page</source>
        <translation>在页面上框出识别的文字行</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="403"/>
        <source>Rotate left and read again</source>
        <translation>向左旋转并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="404"/>
        <source>Turn this page 90° anticlockwise and read it again</source>
        <translation>将此页逆时针旋转 90° 并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="405"/>
        <source>Rotate right and read again</source>
        <translation>向右旋转并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="406"/>
        <source>Turn this page 90° clockwise and read it again</source>
        <translation>将此页顺时针旋转 90° 并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="411"/>
        <source>Convert the whole document to Markdown (tables as HTML)</source>
        <translation>将整个文档转换为 Markdown（表格为 HTML）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="412"/>
        <source>Extract the tables as HTML (exported as an extra Excel sheet)</source>
        <translation>将表格提取为 HTML（导出时成为额外的 Excel 工作表）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="413"/>
        <source>Translate the text of the document into English</source>
        <translation>将文档文字翻译成英文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="414"/>
        <source>Translate the text of the document into Chinese</source>
        <translation>将文档文字翻译成中文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="417"/>
        <source>Convert to &amp;Markdown</source>
        <translation>转换为 &amp;Markdown</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="418"/>
        <source>Extract &amp;tables (HTML)</source>
        <translation>提取表格(&amp;T)（HTML）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="419"/>
        <source>Translate to &amp;English</source>
        <translation>翻译成英文(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="420"/>
        <source>Translate to &amp;Chinese</source>
        <translation>翻译成中文(&amp;C)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="427"/>
        <source>&amp;File</source>
        <translation>文件(&amp;F)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="429"/>
        <source>Open &amp;recent</source>
        <translation>最近打开(&amp;R)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="437"/>
        <source>&amp;Edit</source>
        <translation>编辑(&amp;E)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="443"/>
        <source>&amp;View</source>
        <translation>视图(&amp;V)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="452"/>
        <source>&amp;Document</source>
        <translation>文档(&amp;D)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="455"/>
        <source>&amp;Settings</source>
        <translation>设置(&amp;S)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="457"/>
        <source>&amp;Language</source>
        <translation>语言(&amp;L)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="459"/>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="466"/>
        <source>&amp;Help</source>
        <translation>帮助(&amp;H)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="469"/>
        <source>Main</source>
        <translation>主工具栏</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="478"/>
        <source>Open</source>
        <translation>打开</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="478"/>
        <location filename="../../desktop/gui/mainwindow.py" line="647"/>
        <source>Paste</source>
        <translation>粘贴</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="479"/>
        <location filename="../../desktop/gui/mainwindow.py" line="1315"/>
        <source>Export</source>
        <translation>导出</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="479"/>
        <location filename="../../desktop/gui/mainwindow.py" line="1052"/>
        <source>Reviewed</source>
        <translation>已审核</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="480"/>
        <source>Next</source>
        <translation>下一张</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="480"/>
        <source>Cancel</source>
        <translation>取消</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="481"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="484"/>
        <source>Document tasks</source>
        <translation>文档任务</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="489"/>
        <source>Markdown</source>
        <translation>Markdown</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="489"/>
        <source>Tables</source>
        <translation>表格</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="490"/>
        <source>English</source>
        <translation>英文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="490"/>
        <source>Chinese</source>
        <translation>中文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="569"/>
        <source>No documents found in %1</source>
        <translation>在 %1 中未找到单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="601"/>
        <source>Settings could not be saved: %1</source>
        <translation>无法保存设置：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="611"/>
        <source>No recent files</source>
        <translation>没有最近的文件</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="618"/>
        <source>Open documents</source>
        <translation>打开单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="619"/>
        <source>Documents (%1)</source>
        <translation>单据 (%1)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="619"/>
        <source>All files (*)</source>
        <translation>所有文件 (*)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="637"/>
        <source>The clipboard holds no image or file.</source>
        <translation>剪贴板中没有图片或文件。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="647"/>
        <source>The image could not be saved to %1.</source>
        <translation>无法将图片保存到 %1。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="690"/>
        <location filename="../../desktop/gui/mainwindow.py" line="1228"/>
        <source>Reading is not available in this installation (%1)</source>
        <translation>此安装无法读取单据（%1）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="709"/>
        <source>Cancelling after the current page…</source>
        <translation>读完当前页后取消…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="733"/>
        <source>Waiting for the OCR engine to start…</source>
        <translation>正在等待 OCR 引擎启动…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="734"/>
        <location filename="../../desktop/gui/mainwindow.py" line="764"/>
        <source>Needs the HunyuanOCR engine on a GPU; see Settings.</source>
        <translation>需要在 GPU 上运行的 HunyuanOCR 引擎；请参阅“设置”。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="736"/>
        <source>Select a document that has been read first.</source>
        <translation>请先选择一个已识别的文档。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="738"/>
        <source>This document is being read; wait until it is done.</source>
        <translation>正在识别此文档，请等待完成。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="748"/>
        <source>Convert to Markdown</source>
        <translation>转换为 Markdown</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="749"/>
        <source>Extract tables</source>
        <translation>提取表格</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="750"/>
        <source>Translate to English</source>
        <translation>翻译成英文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="751"/>
        <source>Translate to Chinese</source>
        <translation>翻译成中文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="799"/>
        <source>%1 done: %2</source>
        <translation>%1 完成：%2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="806"/>
        <source>%1 failed: %2</source>
        <translation>%1 失败：%2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="817"/>
        <source>Loading %1…</source>
        <translation>正在加载 %1…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="817"/>
        <source>Loading the OCR engine…</source>
        <translation>正在加载 OCR 引擎…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="819"/>
        <source>%1 ready</source>
        <translation>%1 已就绪</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="824"/>
        <source>slow on the CPU</source>
        <translation>在 CPU 上较慢</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="843"/>
        <source>reading…</source>
        <translation>读取中…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="846"/>
        <source>page %1 of %2</source>
        <translation>第 %1 / %2 页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="856"/>
        <source>Nothing was read from this file.</source>
        <translation>未从此文件读取到内容。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="867"/>
        <source>Rotate and read again</source>
        <translation>旋转并重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="873"/>
        <source>Reading again failed: %1</source>
        <translation>重新识别失败：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="881"/>
        <location filename="../../desktop/gui/mainwindow.py" line="883"/>
        <source>cancelled</source>
        <translation>已取消</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="895"/>
        <source>Reading finished.</source>
        <translation>读取完成。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="930"/>
        <source>The page could not be shown: %1</source>
        <translation>无法显示此页：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="980"/>
        <source>No document</source>
        <translation>没有单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="983"/>
        <source>Drop receipts, invoices or whole folders here, or use File ▸ Open (Ctrl+O).</source>
        <translation>将收据、发票或整个文件夹拖放到此处，或使用“文件 ▸ 打开”（Ctrl+O）。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="984"/>
        <source>Drop files here</source>
        <translation>将文件拖放到此处</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="991"/>
        <source>Waiting to be read…</source>
        <translation>等待读取…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="991"/>
        <source>Reading…</source>
        <translation>读取中…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1002"/>
        <source>This file could not be read:
%1</source>
        <translation>无法读取此文件：
%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1007"/>
        <source>Reading failed: %1</source>
        <translation>读取失败：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1014"/>
        <source>Reviewed ✓</source>
        <translation>已审核 ✓</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1048"/>
        <source>%n field(s) to check</source>
        <translation>
            <numerusform>%n 个字段需要检查</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1050"/>
        <source>Every field checks out</source>
        <translation>所有字段均通过检查</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1056"/>
        <source>(+%n more)</source>
        <translation>
            <numerusform>（另有 %n 条）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1071"/>
        <source>Page %1 of %2</source>
        <translation>第 %1 / %2 页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1135"/>
        <source>Click a field in the form first, then a line on the page to copy its text into it.</source>
        <translation>先点击表单中的字段，再点击页面上的文字行，即可将文字填入该字段。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1140"/>
        <source>Put “%1” into %2</source>
        <translation>将“%1”填入 %2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1143"/>
        <source>Copy text</source>
        <translation>复制文字</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1187"/>
        <source>Edit %1</source>
        <translation>编辑 %1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1211"/>
        <source>Change type</source>
        <translation>更改类型</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1211"/>
        <source>The fields could not be read again: %1</source>
        <translation>无法重新提取字段：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1216"/>
        <source>Change document type</source>
        <translation>更改单据类型</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1227"/>
        <source>Read again</source>
        <translation>重新识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1231"/>
        <source>reading page %1 again…</source>
        <translation>正在重新识别第 %1 页…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1253"/>
        <source>Mark as needing review</source>
        <translation>标记为待审核</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1274"/>
        <source>No document needs review.</source>
        <translation>没有待审核的单据。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1284"/>
        <source>Remove from queue</source>
        <translation>从队列中移除</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1285"/>
        <source>%n of the documents have your edits or are reviewed. Remove them anyway? (The files themselves are not touched.)</source>
        <translation>
            <numerusform>其中 %n 张单据含有您的修改或已审核。仍要移除吗？（文件本身不会被改动。）</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1316"/>
        <source>No document is marked reviewed yet (Ctrl+Enter marks one).</source>
        <translation>还没有已审核的单据（按 Ctrl+Enter 标记）。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1317"/>
        <source>Select documents in the queue first.</source>
        <translation>请先在队列中选择单据。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1318"/>
        <source>Nothing has been read yet.</source>
        <translation>尚未读取任何单据。</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1323"/>
        <source>Export %n document(s)</source>
        <translation>
            <numerusform>导出 %n 张单据</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1324"/>
        <source>Excel workbook (*.xlsx)</source>
        <translation>Excel 工作簿 (*.xlsx)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1324"/>
        <source>JSON (*.json)</source>
        <translation>JSON (*.json)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1324"/>
        <source>CSV (*.csv)</source>
        <translation>CSV (*.csv)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1348"/>
        <source>Export failed</source>
        <translation>导出失败</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1349"/>
        <source>%1 could not be written:
%2</source>
        <translation>无法写入 %1：
%2</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1354"/>
        <source>Exported %n document(s) to %1</source>
        <translation>
            <numerusform>已将 %n 张单据导出到 %1</numerusform>
        </translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1372"/>
        <source>Restarting the OCR engine…</source>
        <translation>正在重新启动 OCR 引擎…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1385"/>
        <source>Language</source>
        <translation>语言</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/mainwindow.py" line="1386"/>
        <source>The new language is used the next time Shoebox starts.</source>
        <translation>新语言将在下次启动 Shoebox 时生效。</translation>
    </message>
</context>
<context>
    <name>Notes</name>
    <message>
        <location filename="../../desktop/gui/notes.py" line="43"/>
        <source>Page %1 was turned %2° to read it upright</source>
        <translation>第 %1 页已旋转 %2° 以便正向识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/notes.py" line="46"/>
        <source>Page %1: could not tell which way up it is; read as scanned</source>
        <translation>第 %1 页：无法判断方向，按扫描方向识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/notes.py" line="49"/>
        <source>Page %1: no text found (blank, or the print is too faint)</source>
        <translation>第 %1 页：未找到文字（空白页，或字迹太淡）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/notes.py" line="52"/>
        <source>Page %1 could not be read: %2</source>
        <translation>第 %1 页无法识别：%2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/notes.py" line="55"/>
        <source>Page %1: %2</source>
        <translation>第 %1 页：%2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/notes.py" line="61"/>
        <source>The AI model gave no fields; they were read from the page text instead</source>
        <translation>AI 模型未返回字段，已改为从页面文字中读取</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/notes.py" line="64"/>
        <source>The AI model could not read the fields of page %1 (%2); they were read from the page text instead</source>
        <translation>AI 模型无法读取第 %1 页的字段（%2），已改为从页面文字中读取</translation>
    </message>
</context>
<context>
    <name>QueueModel</name>
    <message>
        <location filename="../../desktop/gui/queue.py" line="143"/>
        <source>Document</source>
        <translation>单据</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="143"/>
        <source>Type</source>
        <translation>类型</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="143"/>
        <source>Status</source>
        <translation>状态</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="143"/>
        <source>Check</source>
        <translation>待查</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="145"/>
        <source>Fields that need attention (problems or low confidence)</source>
        <translation>需要注意的字段（有问题或置信度低）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="151"/>
        <source>Queued</source>
        <translation>排队中</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="153"/>
        <source>Reading</source>
        <translation>读取中</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="159"/>
        <source>Failed: %1</source>
        <translation>失败：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="162"/>
        <source>Reviewed</source>
        <translation>已审核</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/queue.py" line="163"/>
        <source>Needs review</source>
        <translation>待审核</translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/queue.py" line="210"/>
        <source>%n field(s) need attention</source>
        <translation>
            <numerusform>%n 个字段需要注意</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ReadWorker</name>
    <message>
        <location filename="../../desktop/gui/worker.py" line="129"/>
        <source>The OCR engine could not start: %1</source>
        <translation>OCR 引擎无法启动：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/worker.py" line="208"/>
        <source>Reading page %1 again</source>
        <translation>正在重新识别第 %1 页</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/worker.py" line="241"/>
        <source>HunyuanOCR is running on the CPU: expect minutes per page. Choose PP-OCR in Settings for fast reading on this computer.</source>
        <translation>HunyuanOCR 正在 CPU 上运行：每页需要数分钟。如需在这台电脑上快速识别，请在设置中选择 PP-OCR。</translation>
    </message>
</context>
<context>
    <name>SettingsDialog</name>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="34"/>
        <source>Settings</source>
        <translation>设置</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="39"/>
        <source>Automatic (GPU model when available, else PP-OCR)</source>
        <translation>自动（有 GPU 模型时使用，否则使用 PP-OCR）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="40"/>
        <source>PP-OCR on the CPU</source>
        <translation>PP-OCR（CPU）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="41"/>
        <source>HunyuanOCR on the GPU</source>
        <translation>HunyuanOCR（GPU）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="43"/>
        <source>OCR &amp;engine:</source>
        <translation>OCR 引擎(&amp;E)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="46"/>
        <source>Search the usual places</source>
        <translation>在常用位置查找</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="47"/>
        <source>Browse…</source>
        <translation>浏览…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="52"/>
        <source>HunyuanOCR &amp;model folder:</source>
        <translation>HunyuanOCR 模型文件夹(&amp;M)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="59"/>
        <source>Detect automatically</source>
        <translation>自动识别</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="63"/>
        <source>Default &amp;document type:</source>
        <translation>默认单据类型(&amp;D)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="66"/>
        <source>From the document</source>
        <translation>根据单据判断</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="67"/>
        <source>Day first (31/12/2024)</source>
        <translation>日在前 (31/12/2024)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="68"/>
        <source>Month first (12/31/2024)</source>
        <translation>月在前 (12/31/2024)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="70"/>
        <source>Ambiguous &amp;dates:</source>
        <translation>含糊日期(&amp;D)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="73"/>
        <source>System language</source>
        <translation>跟随系统</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="77"/>
        <source>&amp;Language:</source>
        <translation>语言(&amp;L)：</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="78"/>
        <source>A new language or engine choice applies to documents read from now on; the language changes after a restart.</source>
        <translation>新的引擎选择对之后读取的单据生效；语言在重新启动后生效。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="96"/>
        <source>HunyuanOCR model folder</source>
        <translation>HunyuanOCR 模型文件夹</translation>
    </message>
</context>
<context>
    <name>TaskOutputPanel</name>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="119"/>
        <source>Source</source>
        <translation>源代码</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="120"/>
        <source>Show the Markdown or HTML as written instead of formatted</source>
        <translation>显示 Markdown 或 HTML 原文，而不是排版后的效果</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="122"/>
        <source>Copy</source>
        <translation>复制</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="124"/>
        <source>Copy the output (Markdown or HTML as written) to the clipboard</source>
        <translation>将输出（Markdown 或 HTML 原文）复制到剪贴板</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="126"/>
        <source>Save as…</source>
        <translation>另存为…</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="147"/>
        <source>Markdown</source>
        <translation>Markdown</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="148"/>
        <source>Tables (HTML)</source>
        <translation>表格（HTML）</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="149"/>
        <source>English translation</source>
        <translation>英文译文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="150"/>
        <source>Chinese translation</source>
        <translation>中文译文</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="194"/>
        <source>No task output yet. The Document menu converts a document to Markdown, extracts its tables as HTML or translates it (with the HunyuanOCR engine on a GPU).</source>
        <translation>尚无任务输出。“文档”菜单可将文档转换为 Markdown、将表格提取为 HTML 或翻译文档（需要在 GPU 上运行的 HunyuanOCR 引擎）。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="200"/>
        <source>Not every page could be processed: %1</source>
        <translation>部分页面未能处理：%1</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="213"/>
        <source>Copied to the clipboard.</source>
        <translation>已复制到剪贴板。</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="226"/>
        <source>Markdown (*.md)</source>
        <translation>Markdown (*.md)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="226"/>
        <source>HTML (*.html)</source>
        <translation>HTML (*.html)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="226"/>
        <source>Text (*.txt)</source>
        <translation>文本 (*.txt)</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="228"/>
        <source>Save task output</source>
        <translation>保存任务输出</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="251"/>
        <source>Save failed</source>
        <translation>保存失败</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="252"/>
        <source>%1 could not be written:
%2</source>
        <translation>无法写入 %1：
%2</translation>
    </message>
    <message>
        <location filename="../../desktop/gui/taskview.py" line="254"/>
        <source>Saved %1</source>
        <translation>已保存 %1</translation>
    </message>
</context>
<context>
    <name>parent</name>
    <message>
        <location filename="../../desktop/gui/dialogs.py" line="126"/>
        <source>About Shoebox</source>
        <translation>关于 Shoebox</translation>
    </message>
</context>
</TS>
