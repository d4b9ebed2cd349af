"""Each gate's self-test fixtures, one module per gate: the corpora that show the gate refusing a
known defect and passing a clean control (and, for structure, the cases themselves).

A gate's ``self_test()`` stays in the gate module (GATES.md's shape of a gate) and imports its
fixture module; a fixture module never imports its gate (where the cases run the gate, the gate
passes its ``check`` in), so the layout keeps no import cycle. The builders are not shared between
gates: each gate's corpora are small and shaped for its own rules, and merging them would change
the bytes its cases check.
"""
