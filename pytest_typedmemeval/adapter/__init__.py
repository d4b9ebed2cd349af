"""The adapter side: what crosses the boundary to the memory system under test, and how.

- :mod:`.protocol`: the adapter protocol and its value types (``Turn``, ``Session``, ``Evidence``,
  ``Answer``, ``MemoryAgent``);
- :mod:`.projection`: a corpus record projected into what the adapter may see (opaque session ids,
  the instruction and its answer contract);
- :mod:`.bounded_calls`: calling the adapter within ``--tme-timeout``, sync or async;
- :mod:`.run`: one question end to end (reset, ingest, ask, judge; the judge is any
  :class:`..judge.protocol.Judge`);
- :mod:`.factories`: ``--tme-agent`` specs and aliases resolved to adapter factories;
- the built-in agents: :mod:`.reference_agent` (lexical, no model) and :mod:`.llm_agents`
  (``llm-full-context``, ``llm-bm25``, ``llm-no-memory``); ``reference-memory`` is the scenario
  benchmark's reference memory (:mod:`..scenarios.reference_memory`) behind the same protocol.

Nothing here imports pytest, and this ``__init__`` imports nothing: the gates and the dataset
loaders use the protocol types and the projection without loading the runner or an agent.
"""
