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
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, NoReturn

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
    ``--tme-agent module:factory``. It is reset before every question.

    Precedence (issue 22, item 2): ``--tme-agent`` on the command line, then a ``conftest.py``
    override of this fixture, then the ini ``typedmemeval_agent`` (which this default builds)."""
    session = tme_session(request.config)
    if not session.agent_spec:
        raise pytest.UsageError(NO_ADAPTER_MESSAGE)
    return agent_from_spec(session)


def agent_from_spec(session: TypedMemEvalSession) -> Any:
    """The adapter :attr:`~.session.TypedMemEvalSession.agent_spec` names, built once per process
    (the default fixture and a ``--tme-agent`` override share it)."""
    from ..adapter.factories import is_llm_agent_alias, load_agent_factory

    if session.spec_agent is None:
        spec = session.agent_spec or ""
        session.spec_agent = session.llm_agent() if is_llm_agent_alias(spec) else load_agent_factory(spec)()
    return session.spec_agent


def requested_agent(request: pytest.FixtureRequest, session: TypedMemEvalSession) -> Any:
    """The adapter by the documented precedence: ``--tme-agent`` over any ``typedmemeval_agent``
    fixture (as ``--help`` says), the fixture (a conftest override, or the default building the
    ini spec) otherwise. Raises what the source raised."""
    if session.agent_from_command_line:
        return agent_from_spec(session)
    return request.getfixturevalue("typedmemeval_agent")


def default_agent_function() -> Any:
    return getattr(typedmemeval_agent, "_get_wrapped_function", lambda: typedmemeval_agent)()


def uses_default_agent_fixture(session: pytest.Session, item: pytest.Item) -> bool:
    """``item`` would get the adapter from this plugin's own fixture: no conftest overrides it."""
    manager = getattr(session, "_fixturemanager", None)
    fixturedefs = manager.getfixturedefs("typedmemeval_agent", item) if manager is not None else None
    return bool(fixturedefs) and fixturedefs[-1].func is default_agent_function()


def agent_fixture_plugins(config: pytest.Config, name: str = "typedmemeval_agent") -> tuple[list[str], list[str]]:
    """Module plugins other than this one that define the fixture ``name``, as (those that reach
    the items under ``<rootdir>/typedmemeval/``, those that do not): a ``conftest.py`` reaches only
    the items below its directory; any other plugin module reaches every item. Paths as shown."""
    own = sys.modules[__name__]  # this module is a registered plugin and defines the default
    items_dir = config.rootpath / "typedmemeval"
    reaching: list[str] = []
    stray: list[str] = []
    for plugin in config.pluginmanager.get_plugins():
        if plugin is own or not isinstance(plugin, ModuleType) or getattr(plugin, name, None) is None:
            continue
        file = getattr(plugin, "__file__", None)
        path = Path(file).resolve() if file else None
        if path is None or path.name != "conftest.py":
            reaching.append(plugin.__name__)
            continue
        shown = _shown(path, config)
        (reaching if items_dir.resolve().is_relative_to(path.parent) else stray).append(shown)
    return reaching, stray


def _shown(path: Path, config: pytest.Config) -> str:
    try:
        return str(path.relative_to(config.rootpath.resolve()))
    except ValueError:
        return str(path)


def conftest_defines_agent(config: pytest.Config) -> bool:
    """A module plugin (a rootdir ``conftest.py``) other than this one defines a
    ``typedmemeval_agent`` that reaches the items: what the xdist controller, which collects
    nothing, can see of an override."""
    return bool(agent_fixture_plugins(config)[0])


def no_adapter_message(config: pytest.Config) -> str:
    """:data:`NO_ADAPTER_MESSAGE`, naming any ``conftest.py`` whose fixture does not reach the items."""
    stray = agent_fixture_plugins(config)[1]
    if not stray:
        return NO_ADAPTER_MESSAGE
    return (f"TypedMemEval needs a memory adapter to run questions: the typedmemeval_agent fixture in "
            f"{', '.join(stray)} does not reach the TypedMemEval items, which live at "
            f"<rootdir>/typedmemeval/ ({config.rootpath / 'typedmemeval'}): move it to the conftest.py at "
            "your rootdir, or pass --tme-agent module:factory.")


def describe_agent_source(session: TypedMemEvalSession) -> dict[str, Any]:
    """For the report: which adapter source answered (``agent``, ``source``) and what it overrode
    (``overrides``), by the precedence of :func:`requested_agent`."""
    reaching, _ = agent_fixture_plugins(session.config)
    ini = str(session.config.getini("typedmemeval_agent") or "").strip() or None
    if session.agent_from_command_line:
        overrides = [f"typedmemeval_agent fixture in {where}" for where in reaching]
        if ini and ini != session.agent_spec:
            overrides.append(f"ini typedmemeval_agent {ini}")
        return {"agent": session.agent_spec, "source": "--tme-agent", "overrides": overrides}
    if reaching:
        return {"agent": "typedmemeval_agent fixture", "source": f"typedmemeval_agent fixture in {reaching[0]}",
                "overrides": [f"ini typedmemeval_agent {ini}"] if ini else []}
    if ini:
        return {"agent": ini, "source": "ini typedmemeval_agent", "overrides": []}
    return {"agent": None, "source": None, "overrides": []}


def adapter_origin(session: TypedMemEvalSession, request: pytest.FixtureRequest | None = None) -> str:
    """How the failure line names the source that built (or failed to build) the adapter."""
    if session.agent_from_command_line:
        return f"the --tme-agent factory {session.agent_spec!r}"
    if session.agent_spec and (request is None or uses_default_agent_fixture(request.session, request.node)):
        return f"the ini typedmemeval_agent factory {session.agent_spec!r}"
    return "the typedmemeval_agent fixture"


def adapter_failure_message(session: TypedMemEvalSession, error: BaseException,
                            request: pytest.FixtureRequest | None = None) -> str:
    from ..adapter.run import one_line

    detail = one_line(str(error))
    origin = adapter_origin(session, request)
    where = "your conftest.py fixture" if origin.endswith("fixture") else "the factory"
    return (f"TypedMemEval: the adapter could not be built: {origin} raised "
            f"{type(error).__name__}" + (f": {detail}" if detail else "")
            + f". No question can run; fix {where} and rerun.")


def resolve_agent(request: pytest.FixtureRequest, session: TypedMemEvalSession) -> Any:
    """The adapter, or a one-line failure that stops the run (once, not once per question).

    The fixture is requested here, in the call, rather than as an argument: a fixture that raises
    during setup would be reported with its traceback for every question.
    """
    from ..adapter.factories import AdapterFactory, check_agent
    from ..adapter.run import one_line

    if session.adapter_failure is not None:
        pytest.fail("the adapter is unusable (see the TypedMemEval summary)", pytrace=False)
    try:
        agent = requested_agent(request, session)
        if isinstance(agent, AdapterFactory):  # one instance per question in flight; this is slot 0
            agent = agent.first()
    except (KeyboardInterrupt, pytest.skip.Exception):
        raise  # Ctrl-C, or a fixture that skips on purpose (e.g. its service is absent)
    except BaseException as error:  # noqa: BLE001 - anything else is one usage error for the run
        message = adapter_failure_message(session, error, request)
    else:
        if agent is not None and agent is session.checked_agent:
            # ``checked_agent`` starts as None: a fixture returning None must still be checked
            # (and refused), never mistaken for the instance already found usable.
            return agent
        try:
            check_agent(agent, adapter_origin(session, request))
        except TypeError as error:
            message = f"TypedMemEval: the adapter is not usable: {one_line(str(error))}"
        else:
            session.checked_agent = agent
            return agent
    stop_for_an_unusable_adapter(request, session, message)


def stop_for_an_unusable_adapter(request: pytest.FixtureRequest, session: TypedMemEvalSession,
                                 message: str) -> NoReturn:
    """Stop the run with ``message``: once, exit 4, the other questions in ``not_run``."""
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
