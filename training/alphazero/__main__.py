"""python -m training.alphazero: expert iteration (training.alphazero.loop)."""

import sys

from training.alphazero.loop import main

sys.exit(main())
