from desktop.cli import run

run()
