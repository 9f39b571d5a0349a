"""python -m training.alphazero: expert iteration (training.alphazero.train)."""

import sys

from training.alphazero.train import main

sys.exit(main())
