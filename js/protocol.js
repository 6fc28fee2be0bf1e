// Wire messages between ChatWidget (agent_nb/_jupyter/widget/protocol.py) and this front end.
// These JSDoc typedefs mirror the Python TypedDicts one to one; change both together.

/**
 * @typedef {object} UsageDict
 * @property {number} prompt_tokens
 * @property {number} cached_tokens
 * @property {number} generated_tokens
 * @property {number | null} time_to_first_token_s
 * @property {number | null} tokens_per_s
 * @property {number | null} context_tokens
 * @property {number | null} context_window
 * @property {string | null} window_note
 * @property {number} [replayed_calls] model calls answered from the replay cache
 */

/**
 * @typedef {object} UserEntry
 * @property {"user"} kind
 * @property {string} id
 * @property {string} invocation_id
 * @property {string} text
 */

/**
 * @typedef {object} ModelEntry
 * @property {"model"} kind
 * @property {string} id
 * @property {string} invocation_id
 * @property {string} author
 * @property {string} text
 * @property {boolean} interrupted
 */

/**
 * @typedef {object} ToolCallEntry
 * @property {"tool_call"} kind
 * @property {string} id
 * @property {string} invocation_id
 * @property {string} author the agent that called the tool
 * @property {string} name
 * @property {string} call_id
 * @property {Record<string, unknown>} args
 * @property {string} [server] the MCP server the tool came from; absent for a Python tool
 * @property {boolean} [needs_approval] the call waits for the user's approval until its result comes
 */

/**
 * @typedef {object} ToolResultEntry
 * @property {"tool_result"} kind
 * @property {string} id
 * @property {string} invocation_id
 * @property {string} author
 * @property {string} name
 * @property {string} call_id
 * @property {Record<string, unknown>} response
 */

/**
 * @typedef {object} ScopeUseDict
 * @property {string[]} read state keys the agent read
 * @property {Record<string, string>} wrote key -> its value, shortened
 */

/**
 * One agent's part of an invocation.
 * @typedef {object} TraceStepDict
 * @property {string} agent
 * @property {string} kind "model", "code", "tool-agent", "merge"
 * @property {Record<string, ScopeUseDict>} scopes "temp", "session", "user", "app": those it touched
 * @property {number} prompt_tokens
 * @property {number} cached_tokens
 * @property {number} generated_tokens
 * @property {string | null} error
 */

/**
 * @typedef {object} TraceDict
 * @property {string} invocation_id
 * @property {TraceStepDict[]} steps in the order the agents finished
 */

/**
 * @typedef {object} TurnEntry
 * @property {"turn"} kind
 * @property {string} id
 * @property {string} invocation_id
 * @property {string} finish_reason
 * @property {boolean} interrupted
 * @property {string | null} error
 * @property {number | null} max_tokens the limit that cut the reply (finish_reason "length")
 * @property {UsageDict} usage
 * @property {TraceDict | null} [trace] null: one agent that touched no state, or no longer in memory
 * @property {string | null} [stale] "⚠ `df` changed since this answer — re-run the cell"
 */

/**
 * @typedef {object} TableDict
 * @property {string[]} columns
 * @property {unknown[][]} rows JSON values, each shown as a text node
 */

/**
 * A message with attachments (the data agent's): plan line, result table, chart.
 * @typedef {object} DataEntry
 * @property {"data"} kind
 * @property {string} id
 * @property {string} invocation_id
 * @property {string} author
 * @property {string} text
 * @property {string} plan
 * @property {TableDict | null} table
 * @property {object | null} chart a Vega-Lite spec made by Altair from the result
 */

/** @typedef {UserEntry | ModelEntry | ToolCallEntry | ToolResultEntry | TurnEntry | DataEntry} Entry */

// -- Python -> JS custom messages ------------------------------------------

/**
 * @typedef {object} DeltaMsg
 * @property {"delta"} type
 * @property {string} invocation_id
 * @property {string} [author] the agent writing it
 * @property {string} text
 */

/**
 * @typedef {object} EntryMsg
 * @property {"entry"} type
 * @property {Entry} entry
 */

/**
 * @typedef {object} TurnCompleteMsg
 * @property {"turn_complete"} type
 * @property {string} invocation_id
 * @property {string} finish_reason
 * @property {boolean} interrupted
 * @property {string | null} error
 * @property {number | null} max_tokens the limit that cut the reply (finish_reason "length")
 * @property {UsageDict} usage
 */

/**
 * @typedef {object} ErrorMsg
 * @property {"error"} type
 * @property {string} message
 */

/**
 * All text streamed so far in the running turn; replaces a view's live text.
 * @typedef {object} SnapshotMsg
 * @property {"snapshot"} type
 * @property {string} invocation_id
 * @property {string} [author]
 * @property {string} text
 */

/**
 * How far the model has read a long prompt (before the first token; throttled).
 * @typedef {object} ProgressMsg
 * @property {"progress"} type
 * @property {string} invocation_id
 * @property {number} done
 * @property {number} total
 */

/**
 * The turn waits for other sessions' turns on the model: the cell's words, "" once
 * none is ahead. The turn's first text, progress or entry replaces it.
 * @typedef {object} WaitingMsg
 * @property {"waiting"} type
 * @property {string} invocation_id
 * @property {string} note
 */

/**
 * The chart module's source (agent_nb/static/vega.js), answering a ChartModuleRequest.
 * @typedef {object} ChartModuleMsg
 * @property {"chart_module"} type
 * @property {string} id
 * @property {string} source an ES module; "" when there is none
 * @property {string | null} error why there is none
 */

/** @typedef {DeltaMsg | EntryMsg | TurnCompleteMsg | ErrorMsg | SnapshotMsg | ProgressMsg | WaitingMsg | ChartModuleMsg} FromPython */

// -- JS -> Python custom messages ------------------------------------------

/**
 * @typedef {object} SendMsg
 * @property {"send"} type
 * @property {string} text
 */

/**
 * @typedef {object} StopMsg
 * @property {"stop"} type
 */

/**
 * @typedef {object} NewChatMsg
 * @property {"new_chat"} type
 */

/**
 * A view opened while a turn runs asks for what it missed.
 * @typedef {object} CatchUpMsg
 * @property {"catch_up"} type
 */

/**
 * A view has a chart to draw and no chart module yet (answered by id).
 * @typedef {object} ChartModuleRequest
 * @property {"chart_module"} type
 * @property {string} id
 */

/** @typedef {"attached" | "detached" | "destroyed" | "page_gone" | "connected"} ViewEvent */

/**
 * What happened to one view (lifecycle.py); view_id is "" for page_gone and
 * connected (a page's front end made this widget's model).
 * @typedef {object} ViewMsg
 * @property {"view"} type
 * @property {ViewEvent} event
 * @property {string} page_id
 * @property {string} view_id
 * @property {string[]} live  every view of this widget still live in the page
 */

/**
 * Make another branch the active conversation (a fork's ‹ › arrows).
 * @typedef {object} SwitchBranchMsg
 * @property {"switch_branch"} type
 * @property {number} branch
 */

/**
 * The Approve or Deny button of a call waiting for approval.
 * @typedef {object} ApprovalMsg
 * @property {"approval"} type
 * @property {string} call_id
 * @property {boolean} approved
 */

/** @typedef {SendMsg | StopMsg | NewChatMsg | CatchUpMsg | ViewMsg | SwitchBranchMsg | ChartModuleRequest | ApprovalMsg} FromJs */

// -- synced traits -----------------------------------------------------------

/**
 * @typedef {object} WidgetState
 * @property {string} session_id
 * @property {Entry[]} transcript
 * @property {boolean} busy
 * @property {boolean} session_closed
 * @property {string} model_label
 * @property {string} agent_name  the role label of the model's messages, streaming or not
 * @property {string} view_key  the widget's id, shared by its views in a page
 * @property {string} closed_note  set when the widget closed: what became of its session
 * @property {Fork[]} forks  where the active path took one of several alternative turns
 */

/**
 * @typedef {object} Fork
 * @property {string} invocation_id  the active path's turn at the fork
 * @property {number} position  1-based among its alternatives, oldest first
 * @property {number} count
 * @property {number | null} prev_branch  the branch the ‹ arrow switches to
 * @property {number | null} next_branch
 */

export {};
