"""The web face of a node: a page on 127.0.0.1 to play, watch and replay games with the mouse.

The page is just another face of the node, like the terminal console: it reads the session and
sends actions in the same notation, and the protocol does not change.  `server` serves it on
loopback behind `guard`; `app` declares the routes; `views` turns a node's games into JSON;
each game's board has its own view module and script, named by the game's page record in
`creepnet.cli.faces` (the shared pages load the script a view names; they know no game);
`again` asks "play again?" at a game's end; the shared HTML, CSS and JavaScript live in
`static/`.
"""
