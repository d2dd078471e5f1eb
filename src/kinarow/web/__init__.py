"""The web page: a small server (:mod:`kinarow.web.server`) and its static page (``index.html``)."""
