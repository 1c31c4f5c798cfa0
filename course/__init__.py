"""The course server's protocol, shared by both of its sides: the client (``client``) and the
local emulation of the server (``localserver``) import it, and not each other.

``course.protocol`` has the constants, the reply and stats types, the scoring rule and the
``CourseServer`` interface; ``course.errors`` what can go wrong; ``course.grid`` the board as
the server sends it; ``course.ids`` the rule for student ids; ``course.database`` the way both
sides use SQLite.
"""
