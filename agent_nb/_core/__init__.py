"""Values: contents, events and their codec, state, tools, agents, contexts,
the context window, replies and rendering.

Nothing here starts a thread, touches a store or loads a model; the only
package below it is `agent_nb.errors`. The runtime, backends and stores all
build on these values (enforced by the import-linter contracts in
``pyproject.toml``).
"""
