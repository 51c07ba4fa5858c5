"""Container health check: the MCP endpoint answers (401 without the token is an answer)."""

import sys
import urllib.error
import urllib.request

try:
    urllib.request.urlopen("http://127.0.0.1:8765/mcp", timeout=4)
except urllib.error.HTTPError as exc:
    sys.exit(0 if exc.code in (401, 405, 406) else 1)
except OSError:
    sys.exit(1)
sys.exit(0)
