"""`python -m indexer` is an alias of `wif index`."""

import sys

from indexer.cli import main

sys.exit(main(sys.argv[1:]))
