"""The ``openai`` client, imported only when a model is actually called, behind one clear error.

``openai`` is the optional extra ``models`` (``pip install 'pytest-typedmemeval[models]'``): the
mechanical path (reference agents, mechanical judge, gates) never calls a model, and installing
``openai`` also installs ``anyio``, whose pytest plugin every pytest run in the environment then
loads (issue 22, item 6). So nothing imports ``openai`` at module level; the model-call layer asks
for it here, and its absence is one :class:`.endpoint.ModelCallError` line naming the extra, which
the caller prefixes with the option that asked for a model.
"""

from __future__ import annotations

from types import ModuleType

from .endpoint import ModelCallError

MODELS_EXTRA = "pytest-typedmemeval[models]"
INSTALL_HINT = f"pip install '{MODELS_EXTRA}'"


def import_openai() -> ModuleType:
    """The ``openai`` module, or :class:`ModelCallError` (kind ``config``) naming the extra."""
    try:
        import openai
    except ImportError as error:
        raise ModelCallError("config", f"model calls need the openai client, which is the optional "
                             f"extra 'models' ({error}): {INSTALL_HINT}") from None
    return openai


__all__ = ["INSTALL_HINT", "MODELS_EXTRA", "import_openai"]
