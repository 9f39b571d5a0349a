"""What every training command shares on its command line."""

from __future__ import annotations

import argparse


class OneLineParser(argparse.ArgumentParser):
    """An ArgumentParser whose refusals are one line on stderr, `PROG: error: MESSAGE (--help
    lists the options)`, exit status 2, without argparse's usage lines before it."""

    def error(self, message: str):
        text = " ".join(str(message).split("\n"))
        self.exit(2, f"{self.prog}: error: {text} (--help lists the options)\n")
