"""The offline asv dashboard: the vendored CDN files, the page rewrite, and the published
dashboard in a real headless Chromium with no internet."""
