"""The one exception type that means "the user's input is wrong".

The CLI turns it into a one-line message on stderr and exit status 2; anything else that
escapes is an internal error (exit status 1). Vision code raises it too.
"""


class InputError(ValueError):
    """Bad input from the user: malformed notation, an impossible hand, a broken rule file."""
