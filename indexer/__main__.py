"""`python -m indexer` is an alias of `wif index`."""

import sys

from wif_action.cli import main

sys.exit(main(["index", *sys.argv[1:]]))
