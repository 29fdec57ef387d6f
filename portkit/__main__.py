from portkit.cli import run

run()
