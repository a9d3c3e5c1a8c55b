"""``shoebox scan`` with the vendor memory (and ``--no-memory``), ``shoebox learn``, duplicates in a batch."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from PIL import Image

from desktop import cli
from desktop.core.memory import VendorMemory
from desktop.core.model import ScanResult
from tests.fake_engines import FakeEngine, RecordedPage

LINES = [
    {"text": "KEDAI RUNCIT MAJU SDN BHD", "box": [40, 40, 560, 80]},
    {"text": "NO 8, JALAN KENANGA 3, 68000 AMPANG", "box": [40, 90, 560, 120]},
    {"text": "TEL: 03-42961111", "box": [40, 130, 400, 160]},
    {"text": "DATE: 11/01/2019", "box": [40, 200, 400, 230]},
    {"text": "TOTAL", "box": [40, 400, 200, 430]},
    {"text": "RM 12.50", "box": [420, 400, 560, 430]},
]


@pytest.fixture
def engine(monkeypatch: pytest.MonkeyPatch) -> FakeEngine:
    eng = FakeEngine([RecordedPage(600, 800, LINES)])
    monkeypatch.setattr(cli, "_create_engine", lambda name, model_dir, notes: eng)
    return eng


def _image(path: Path, shade: int = 255) -> Path:
    Image.new("RGB", (600, 800), (shade, shade, shade)).save(path)
    return path


def _scan(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict, str]:
    status = cli.main(["scan", *args, "--type", "receipt", "-q"])
    out, err = capsys.readouterr()
    return status, json.loads(out) if out.strip() else {}, err


def _reviewed(result: dict, path: Path, **corrections: str) -> Path:
    for doc in result["documents"]:
        doc["reviewed"] = True
        for name, value in corrections.items():
            doc["fields"][name].update(value=value, source="user", edited=True)
    path.write_text(json.dumps(result), encoding="utf-8")
    return path


def test_learn_then_scan_applies_the_memory(engine: FakeEngine, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    status, first, _err = _scan(capsys, str(_image(tmp_path / "monday.png")))
    assert status == 0
    assert first["documents"][0]["fields"]["currency"]["source"] != "memory"
    reviewed = _reviewed(first, tmp_path / "reviewed.json", vendor_name="KEDAI RUNCIT MAJU", currency="SGD")
    assert cli.main(["learn", str(reviewed)]) == 0
    assert "learned from 1 document" in capsys.readouterr().err
    with VendorMemory() as memory:
        (profile,) = memory.profiles()
        assert profile.values["currency"] == "SGD" and profile.documents == 1
        assert profile.name == "KEDAI RUNCIT MAJU"

    status, second, err = _scan(capsys, str(_image(tmp_path / "tuesday.png", 250)))
    doc = second["documents"][0]
    name, currency = doc["fields"]["vendor_name"], doc["fields"]["currency"]
    # the clerk's spelling of a name printed on the page is taken (its chip says "memory") ...
    assert name["value"] == "KEDAI RUNCIT MAJU" and name["source"] == "memory" and not name["problems"]
    assert name["raw"] == "KEDAI RUNCIT MAJU SDN BHD"
    # ... a value that disagrees with the page (RM on the receipt) is flagged, not overwritten
    assert currency["value"] == "MYR" and currency["needs_review"] and "SGD" in currency["problems"][0]["message"]
    memory_info = doc["extras"]["memory"]
    assert memory_info["vendor"] == "KEDAI RUNCIT MAJU" and memory_info["score"] > 0.99
    assert memory_info["taught_by"]["vendor_name"] == "monday.png"
    # the same vendor, date and total as Monday's receipt, which the memory learned: a possible duplicate
    assert doc["duplicate_of"] == {"source": str(tmp_path / "monday.png"), "pages": [1, 1],
                                   "reason": "same vendor, date and total", "reason_code": "duplicate_same_date_total"}
    assert "possible duplicate of" in err or err == ""  # -q keeps notes off stderr


def test_no_memory_turns_it_off(engine: FakeEngine, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _status, first, _err = _scan(capsys, str(_image(tmp_path / "monday.png")))
    assert cli.main(["learn", str(_reviewed(first, tmp_path / "r.json", currency="SGD")), "-q"]) == 0
    status, second, _err = _scan(capsys, str(_image(tmp_path / "tuesday.png", 250)), "--no-memory")
    assert status == 0
    doc = second["documents"][0]
    assert "memory" not in doc["extras"]
    assert all(f["source"] != "memory" for f in doc["fields"].values())
    assert doc["duplicate_of"] is None  # the learned documents are not looked at either


def test_duplicates_within_one_batch(engine: FakeEngine, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _image(tmp_path / "a.png")
    b = tmp_path / "b.png"
    b.write_bytes(a.read_bytes())
    status = cli.main(["scan", str(a), str(b), "--type", "receipt", "--no-memory"])
    out, err = capsys.readouterr()
    docs = json.loads(out)["documents"]
    assert status == 0
    assert docs[0]["duplicate_of"] is None
    assert docs[1]["duplicate_of"] == {"source": str(a), "pages": [1, 1], "reason": "same file",
                                       "reason_code": "duplicate_same_file"}
    assert f"note: {b}: possible duplicate of {a} page 1 (the same file)" in err


def test_learn_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "missing.json"
    assert cli.main(["learn", str(missing)]) == cli.EXIT_NOTHING_DONE
    assert f"shoebox: error: {missing}: cannot be read" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text("[1, 2", encoding="utf-8")
    assert cli.main(["learn", str(bad)]) == cli.EXIT_NOTHING_DONE
    assert "not a Shoebox JSON result" in capsys.readouterr().err
    unreviewed = tmp_path / "unreviewed.json"
    from desktop.core.model import Document, Field

    doc = Document(source="x.jpg", document_type="receipt", fields={"vendor_name": Field("vendor_name", value="ACME")})
    unreviewed.write_text(ScanResult([doc]).to_json(), encoding="utf-8")
    assert cli.main(["learn", str(unreviewed)]) == cli.EXIT_NOTHING_DONE
    assert "--all learns every document" in capsys.readouterr().err
    assert cli.main(["learn", str(unreviewed), "--all"]) == cli.EXIT_OK
    assert cli.main(["learn"]) == cli.EXIT_USAGE


def test_learn_leaves_out_fields_still_flagged_and_says_so(engine: FakeEngine, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    """QA finding F1: a reviewed JSON whose vendor field is still ``needs_review`` and not edited does not
    teach it (one line per document on stderr names the file and the fields); ``--include-flagged`` does."""
    monday = _image(tmp_path / "monday.png")
    _status, first, _err = _scan(capsys, str(monday))
    fields = first["documents"][0]["fields"]
    fields["vendor_address"]["needs_review"] = True  # as an engine that read it less surely flags it
    assert not fields["vendor_name"]["needs_review"]
    reviewed = _reviewed(first, tmp_path / "reviewed.json")
    assert cli.main(["learn", str(reviewed)]) == 0
    err = capsys.readouterr().err
    assert (f"shoebox: note: {monday}: not learned, still marked to check and not edited: vendor_address "
            "(--include-flagged learns them)") in err
    assert err.count("not learned") == 1 and "learned from 1 document" in err
    with VendorMemory() as memory:
        (profile,) = memory.profiles()
        assert "vendor_address" not in profile.values and profile.values["vendor_name"] == "KEDAI RUNCIT MAJU SDN BHD"

    # the next receipt: the name the memory vouched for says so (source memory, not ocr at 99.99 %); the
    # address nobody checked is read and flagged as without the memory
    _status, second, _err = _scan(capsys, str(_image(tmp_path / "tuesday.png", 250)))
    doc = second["documents"][0]
    name, address = doc["fields"]["vendor_name"], doc["fields"]["vendor_address"]
    assert name["source"] == "memory" and name["confidence"] > 0.99 and doc["extras"]["memory"]["fields"]["vendor_name"] == "confirmed"
    assert address["source"] == "ocr" and address["confidence"] == fields["vendor_address"]["confidence"]

    # a field the clerk confirmed in the window (extras.confirmed_flagged) is learned; so is every one with --include-flagged
    confirmed = json.loads(reviewed.read_text(encoding="utf-8"))
    confirmed["documents"][0]["extras"]["confirmed_flagged"] = ["vendor_address"]
    (tmp_path / "confirmed.json").write_text(json.dumps(confirmed), encoding="utf-8")
    assert cli.main(["learn", str(tmp_path / "confirmed.json")]) == 0
    assert "not learned" not in capsys.readouterr().err
    with VendorMemory() as memory:
        assert memory.profiles()[0].values["vendor_address"] == "NO 8, JALAN KENANGA 3, 68000 AMPANG"
        memory.forget_document(ScanResult.load(reviewed).documents[0])
        assert memory.profiles() == []
    assert cli.main(["learn", str(reviewed), "--include-flagged"]) == 0
    assert "not learned" not in capsys.readouterr().err
    with VendorMemory() as memory:
        assert memory.profiles()[0].values["vendor_address"] == "NO 8, JALAN KENANGA 3, 68000 AMPANG"


def test_learn_says_when_nothing_is_left_to_learn(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from desktop.core.model import Document, Field

    flagged = Field("vendor_name", value="HOTEL SEEBLICK KG", confidence=0.85, needs_review=True)
    doc = Document(source="inv.png", document_type="invoice", fields={"vendor_name": flagged}, reviewed=True)
    path = tmp_path / "r.json"
    path.write_text(ScanResult([doc]).to_json(), encoding="utf-8")
    assert cli.main(["learn", str(path)]) == cli.EXIT_NOTHING_DONE
    err = capsys.readouterr().err
    assert ("note: inv.png: not learned, still marked to check and not edited: vendor_name (nothing else to learn) "
            "(--include-flagged learns them)") in err
    assert "no vendor name or tax ID" not in err
    assert cli.main(["learn", str(path), "--include-flagged", "-q"]) == cli.EXIT_OK
