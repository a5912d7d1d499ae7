"""site_dir.py PREFIX: where this Python looks for packages installed under
PREFIX, relative to it (Debian: lib/python3.11/dist-packages for /usr/local,
lib/python3/dist-packages for /usr); the standard layout when it has none."""
import os
import site
import sys

prefix = os.path.abspath(sys.argv[1])
for d in site.getsitepackages():
    rel = os.path.relpath(d, prefix)
    if rel.startswith("lib"):
        print(rel)
        break
else:
    print("lib/python%d.%d/site-packages" % sys.version_info[:2])
