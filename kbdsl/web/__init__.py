"""The web table: `kbdsl serve --http`, the protocol over HTTP and WebSockets, and the pages.

`tables` holds games with seats (people with secret tokens, bots) and decides who may ask
what; `app` is the Starlette transport (requests, pushes, bot turns, files); `static/` is the
page, plain HTML, CSS and JavaScript with no build step. Needs the `web` extra.
"""
