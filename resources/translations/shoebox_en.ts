<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE TS>
<TS version="2.1" language="en" sourcelanguage="en">
<context>
    <name>DocumentPanel</name>
    <message numerus="yes">
        <location filename="../../desktop/gui/docpanel.py" line="142"/>
        <source>%n field(s) to check</source>
        <translation>
            <numerusform>%n field to check</numerusform>
            <numerusform>%n fields to check</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/docpanel.py" line="150"/>
        <source>(+%n more)</source>
        <translation>
            <numerusform>(+%n more)</numerusform>
            <numerusform>(+%n more)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ExportController</name>
    <message numerus="yes">
        <location filename="../../desktop/gui/exporting.py" line="61"/>
        <source>Export %n document(s)</source>
        <translation>
            <numerusform>Export %n document</numerusform>
            <numerusform>Export %n documents</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/exporting.py" line="102"/>
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
        <location filename="../../desktop/gui/queue.py" line="240"/>
        <source>%n field(s) to check</source>
        <translation>
            <numerusform>%n field to check</numerusform>
            <numerusform>%n fields to check</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ReadingController</name>
    <message numerus="yes">
        <location filename="../../desktop/gui/reading.py" line="336"/>
        <source>Reading finished. %n possible duplicate(s) marked: %1</source>
        <translation>
            <numerusform>Reading finished. %n possible duplicate marked: %1</numerusform>
            <numerusform>Reading finished. %n possible duplicates marked: %1</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>ReviewController</name>
    <message numerus="yes">
        <location filename="../../desktop/gui/reviewing.py" line="203"/>
        <source>%n field(s) are still marked to check: %1. Mark reviewed anyway?</source>
        <translation>
            <numerusform>%n field is still marked to check: %1. Mark reviewed anyway?</numerusform>
            <numerusform>%n fields are still marked to check: %1. Mark reviewed anyway?</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/reviewing.py" line="282"/>
        <source>%n of the documents have your edits or are reviewed. Remove them anyway? (The files themselves are not touched.)</source>
        <translation>
            <numerusform>%n of the documents has your edits or is reviewed. Remove them anyway? (The files themselves are not touched.)</numerusform>
            <numerusform>%n of the documents have your edits or are reviewed. Remove them anyway? (The files themselves are not touched.)</numerusform>
        </translation>
    </message>
</context>
<context>
    <name>VendorsDialog</name>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="152"/>
        <source>%n vendor(s)</source>
        <translation>
            <numerusform>%n vendor</numerusform>
            <numerusform>%n vendors</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="239"/>
        <source>%n vendor(s) merged</source>
        <translation>
            <numerusform>%n vendor merged</numerusform>
            <numerusform>%n vendors merged</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="258"/>
        <source>%n vendor(s) deleted</source>
        <translation>
            <numerusform>%n vendor deleted</numerusform>
            <numerusform>%n vendors deleted</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="266"/>
        <source>Forget %n vendor(s) and what their documents taught? The documents themselves stay.</source>
        <translation>
            <numerusform>Forget this vendor and what its documents taught? The documents themselves stay.</numerusform>
            <numerusform>Forget these %n vendors and what their documents taught? The documents themselves stay.</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="280"/>
        <source>%n vendor(s) written to %1</source>
        <translation>
            <numerusform>%n vendor written to %1</numerusform>
            <numerusform>%n vendors written to %1</numerusform>
        </translation>
    </message>
    <message numerus="yes">
        <location filename="../../desktop/gui/vendors.py" line="302"/>
        <source>%n document(s) learned from %1</source>
        <translation>
            <numerusform>%n document learned from %1</numerusform>
            <numerusform>%n documents learned from %1</numerusform>
        </translation>
    </message>
</context>
</TS>
