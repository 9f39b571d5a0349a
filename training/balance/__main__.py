"""python -m training.balance: a balance study (training.balance.study)."""

import sys

from training.balance.study import main

sys.exit(main())
