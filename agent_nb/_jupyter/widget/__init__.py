"""`ChatWidget`: the anywidget chat UI and its message protocol."""

from .chat_widget import ChatWidget

__all__ = ["ChatWidget"]
