"""The course client: the server protocol, its HTTP and in-process implementations, the game
loop with its local mirror, the SQLite game record, and the ``online``/``stats``/``local``
commands.

``course.protocol`` holds the types and errors, ``client.http`` talks to the real server,
``localserver.inprocess`` to a ``localserver.service.CourseService`` in the same process,
``client.game`` plays one game, ``client.records`` keeps them, ``client.localgame`` plays in
the course environment, and ``client.cli`` wires them to the command line.
"""
