"""End-to-end: the shipped rules lint clean and their scenarios pass, through the CLI."""

from kbdsl.cli import main


def test_shipped_rules_lint_clean(capsys):
    assert main(["lint", "rules"]) == 0, capsys.readouterr().out


def test_shipped_scenarios_pass(capsys):
    code = main(["test", "rules", "tests"])
    out = capsys.readouterr().out
    assert code == 0, out
    assert " 0 failed" in out
