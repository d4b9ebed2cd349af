"""The adapter under test: the ``typedmemeval_agent`` fixture, resolving it once per run, and the
one usage error when it cannot be built or is missing.

Shared by the question, gate and dataset items, which all run questions through the same adapter.
A registered plugin module (named in :data:`pytest_typedmemeval.plugin.pytest_plugins`), so the
fixture is found like any plugin fixture and a rootdir ``conftest.py`` overrides it. The adapter
is requested inside each item's call, never as an argument: a fixture that raises is then one
usage error for the run (its line in the TypedMemEval summary), not a setup traceback per question.
"""

from __future__ import annotations

import sys
from collections.abc import Generator
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from .session import tme_session

if TYPE_CHECKING:
    from .session import TypedMemEvalSession

NO_ADAPTER_MESSAGE = (
    "TypedMemEval needs a memory adapter to run questions: override the `typedmemeval_agent` fixture "
    "in the conftest.py at your rootdir, or pass --tme-agent module:factory (use --tme-agent "
    "reference for the built-in lexical baseline)."
)
ADAPTER_FAILURE_KEY = pytest.StashKey[str]()
ADAPTER_FAILURE_ATTRIBUTE = "typedmemeval_adapter_failure"
"""Report attribute carrying the adapter failure line to the process that aggregates (plain data)."""


@pytest.fixture(scope="session")
def typedmemeval_agent(request: pytest.FixtureRequest) -> Any:
    """The memory system under test. Override this fixture in your rootdir ``conftest.py``, or pass
    ``--tme-agent module:factory``. It is reset before every question."""
    from ..adapter.factories import is_llm_agent_alias, load_agent_factory

    session = tme_session(request.config)
    spec = session.agent_spec
    if not spec:
        raise pytest.UsageError(NO_ADAPTER_MESSAGE)
    if is_llm_agent_alias(spec):
        return session.llm_agent()
    return load_agent_factory(spec)()


def default_agent_function() -> Any:
    return getattr(typedmemeval_agent, "_get_wrapped_function", lambda: typedmemeval_agent)()


def uses_default_agent_fixture(session: pytest.Session, item: pytest.Item) -> bool:
    """``item`` would get the adapter from this plugin's own fixture: no conftest overrides it."""
    manager = getattr(session, "_fixturemanager", None)
    fixturedefs = manager.getfixturedefs("typedmemeval_agent", item) if manager is not None else None
    return bool(fixturedefs) and fixturedefs[-1].func is default_agent_function()


def conftest_defines_agent(config: pytest.Config) -> bool:
    """A module plugin (a ``conftest.py``) other than this one defines ``typedmemeval_agent``: what
    the xdist controller, which collects nothing, can see of an override."""
    own = sys.modules[__name__]  # this module is a registered plugin and defines the default
    for plugin in config.pluginmanager.get_plugins():
        if plugin is own or not isinstance(plugin, ModuleType):
            continue
        if getattr(plugin, "typedmemeval_agent", None) is not None:
            return True
    return False


def adapter_origin(session: TypedMemEvalSession) -> str:
    if session.agent_spec:
        return f"the --tme-agent factory {session.agent_spec!r}"
    return "the typedmemeval_agent fixture"


def adapter_failure_message(session: TypedMemEvalSession, error: BaseException) -> str:
    from ..adapter.run import one_line

    detail = one_line(str(error))
    where = "your conftest.py fixture" if not session.agent_spec else "the factory"
    return (f"TypedMemEval: the adapter could not be built: {adapter_origin(session)} raised "
            f"{type(error).__name__}" + (f": {detail}" if detail else "")
            + f". No question can run; fix {where} and rerun.")


def resolve_agent(request: pytest.FixtureRequest, session: TypedMemEvalSession) -> Any:
    """The adapter, or a one-line failure that stops the run (once, not once per question).

    The fixture is requested here, in the call, rather than as an argument: a fixture that raises
    during setup would be reported with its traceback for every question.
    """
    from ..adapter.factories import check_agent
    from ..adapter.run import one_line

    if session.adapter_failure is not None:
        pytest.fail("the adapter is unusable (see the TypedMemEval summary)", pytrace=False)
    try:
        agent = request.getfixturevalue("typedmemeval_agent")
    except (KeyboardInterrupt, pytest.skip.Exception):
        raise  # Ctrl-C, or a fixture that skips on purpose (e.g. its service is absent)
    except BaseException as error:  # noqa: BLE001 - anything else is one usage error for the run
        message = adapter_failure_message(session, error)
    else:
        try:
            check_agent(agent, adapter_origin(session))
        except TypeError as error:
            message = f"TypedMemEval: the adapter is not usable: {one_line(str(error))}"
        else:
            return agent
    session.adapter_failure = message
    request.node.stash[ADAPTER_FAILURE_KEY] = message
    # The full line is printed once, in the TypedMemEval summary (and the report); the item and
    # pytest's stop banner point there.
    request.session.shouldfail = "TypedMemEval: stopped, the adapter is unusable (reason in the TypedMemEval summary)"
    pytest.fail("the adapter is unusable, so no question ran; the reason is in the TypedMemEval summary",
                pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]
                              ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """The adapter failure an item recorded travels on its call report (xdist ships it)."""
    report = yield
    failure = item.stash.get(ADAPTER_FAILURE_KEY, None)
    if failure is not None and report.when == "call":
        setattr(report, ADAPTER_FAILURE_ATTRIBUTE, failure)
    return report
