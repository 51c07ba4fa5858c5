"""Point nltk at the bundle's nltk_data through the environment, without importing nltk."""

import os
import sys

os.environ.setdefault("NLTK_DATA", os.path.join(sys._MEIPASS, "nltk_data"))
