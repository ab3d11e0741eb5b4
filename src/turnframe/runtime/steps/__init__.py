"""The turn pipeline's steps, one module each (docs/architecture.md, "The pipeline in the code").

Every step is one async function ``step(parts, data) -> output`` over a
:class:`~turnframe.runtime.parts.RuntimeParts` and a typed input; only
:mod:`turnframe.runtime.pipeline` composes them (import-linter contracts
``runtime-steps-independent`` and ``runtime-steps-composed-by-pipeline``).
"""
