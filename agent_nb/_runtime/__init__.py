"""The runtime: the kernel-scoped runner, sessions, the invocation engine and
the worker loop that runs turns off the kernel's main thread.

It sits above `agent_nb.backends` and `agent_nb.stores` and below the Jupyter
surface, which it never imports.
"""
