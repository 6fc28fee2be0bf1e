# Names vulture cannot see used, each group with why (`vulture` in .ci/run and
# tests/test_dead_code.py). A name that is really dead is deleted, not added here.
# ruff: noqa
# fmt: off
_ = object()

# Public API: called by users and the docs, not by the package itself.
_.run_single_turn; _.generate_content_async; _.register_agent; _.rewind_session
_.close_session; _.get_history; _.approve; _.deny; _.text_tokens; _.text_messages
_.enqueue; _.owned_sessions
supports_tools  # Backend's capability flag (STYLE: capabilities as class flags)

# Protocols called by Python, IPython, traitlets, anywidget or SQLAlchemy by name.
__dir__; __getattr__  # lazy module attributes (PEP 562)
_._repr_markdown_; _._ipython_display_; _._render_traceback_
_.agent_cell; _.agent_line  # registered by @cell_magic / @line_magic
_._check_store; _._check_finite; _._check_repeats; _._check_mcp_servers  # @validate
_._check_mcp_timeout; _._check_disk_budget
_._mcp_servers_changed; _._kv_changed; _._store_changed; _._watch_comm  # @observe
_shutdown_at_exit; _close_all_at_exit  # atexit.register
_connect; _begin  # SQLAlchemy event listeners
_.isolation_level; _.journal_mode; _.user_version  # set on / read from the connection
exc_type; tb  # __aexit__'s signature
_.maxother; _.maxstring; _.maxdict; _.maxlist; _.maxset; _.maxtuple  # reprlib.Repr limits
_.pre_tokenizer; _.decoder; _.post_processor  # set on a tokenizers.Tokenizer

# Read by the front end (synced traitlets, wire messages to js/).
streaming; _.streaming; session_closed; _.session_closed; view_key; _.view_key; own_id; _.own_id
window_note; wrote

# Dataclass fields read through getattr or kept in stats a person reads.
input_spec  # agent_tool reads it by name
captured_at; mlx_seconds; io_seconds; last_resume; _.mlx_seconds; _.io_seconds; _.last_resume

# Read only by tests; backends/mlx is another engineer's area this round (issue 49).
_.use_model_identity

# The CPU decode kernel (agent_nb/backends/mlx/decode_*.py): which build loaded, read by
# its tests and benchmark; a layer's and the model's class swapped for a routed subclass.
_.simd
_.__class__
