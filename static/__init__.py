"""The pages, styles, scripts, fonts and flags of the service (no build step, no CDN).

Kept at the top of the repository; a built wheel installs this folder as the package
``overlay.static``, and the service finds it with :func:`overlay.assets.static_dir`.
"""
