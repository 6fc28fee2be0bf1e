"""The Jupyter surface: ``%%agent`` / ``%agent`` (`magics`), `ChatWidget`
(`widget`), what goes into a prompt from the notebook (`prompts`) and session
export. It sits on top of `agent_nb._runtime`; nothing below imports it.
"""
