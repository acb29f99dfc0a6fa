"""``taicam serve``: the table's web app, for a phone or a laptop on the same network.

Take a photo of the winning hand, fix a misread tile with a tap, give the win in a few taps, see the
itemised score and the payments, and keep the table's game (dealer, streak, round, balances) in a
SQLite file. ``game`` holds the rules of the game as pure functions, ``store`` the database,
``photos`` the uploads and readings, ``app`` the scoring for the table, ``routes`` the HTTP server,
``cli`` the command, ``benchmark`` the upload-to-result time; the page is ``static/``.
"""
