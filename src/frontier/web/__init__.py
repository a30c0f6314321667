"""The KB in a browser: a local read-only server and a static site, from the same views."""
