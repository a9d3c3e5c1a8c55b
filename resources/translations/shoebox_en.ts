<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>MainWindow</name>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1048"/>
        <source>%n field(s) to check</source>
        <translation>
            <numerusform>%n field to check</numerusform>
            <numerusform>%n fields to check</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1056"/>
        <source>(+%n more)</source>
        <translation>
            <numerusform>(+%n more)</numerusform>
            <numerusform>(+%n more)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1285"/>
        <source>%n of the documents have your edits or are reviewed. Remove them anyway? (The files themselves are not touched.)</source>
        <translation>
            <numerusform>%n of the documents has your edits or is reviewed. Remove them anyway? (The files themselves are not touched.)</numerusform>
            <numerusform>%n of the documents have your edits or are reviewed. Remove them anyway? (The files themselves are not touched.)</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1323"/>
        <source>Export %n document(s)</source>
        <translation>
            <numerusform>Export %n document</numerusform>
            <numerusform>Export %n documents</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/mainwindow.py" line="1354"/>
        <source>Exported %n document(s) to %1</source>
        <translation>
            <numerusform>Exported %n document to %1</numerusform>
            <numerusform>Exported %n documents to %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>QueueModel</name>
    <message numerus="yes">
        <location filename="../../desktop/gui/queue.py" line="210"/>
        <source>%n field(s) need attention</source>
        <translation>
            <numerusform>%n field needs attention</numerusform>
            <numerusform>%n fields need attention</numerusform>
        </translation>
    </message>
</context>
</TS>
