"""Data files shipped with Shoebox (document-type definitions, icons, translations).

Installed as the package ``desktop._resources``; read them through :mod:`desktop.resources`.
"""
