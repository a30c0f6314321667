"""One function per command: open the workspace, do the work inside a recorded run, return data.

Nothing here prints or parses arguments (that is `frontier.cli`); errors the user can fix are
raised as `frontier.errors.FrontierError`.
"""
