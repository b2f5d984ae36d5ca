"""Framework-free domain code of the tool metadata skill (no aea imports here).

Modules: :mod:`.model` (the immutable catalogue model), :mod:`.parsing` (every manifest
shape into the model), :mod:`.validation` (strict decoding and the JSON Schema),
:mod:`.types` (the argument type vocabulary), :mod:`.cid` (digest <-> CID, verification),
:mod:`.problems` (problem codes).
"""
