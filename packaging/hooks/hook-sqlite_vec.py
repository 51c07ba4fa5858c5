"""sqlite-vec is a loadable SQLite extension found next to sqlite_vec/__init__.py."""

import glob
import os

from PyInstaller.utils.hooks import get_package_paths

_, _root = get_package_paths("sqlite_vec")
binaries = [(path, "sqlite_vec") for path in glob.glob(os.path.join(_root, "vec0.*"))]
