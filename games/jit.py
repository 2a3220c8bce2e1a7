"""`kernel`: the one way this project compiles a function (numba, cached, GIL released, numpy errors).

Error model: numpy's (a division by zero gives inf or nan instead of raising). Python's model gives
every division an exception exit, and arrays bound across such an exit cannot have their reference counting
pruned: measured, a tuner's `record` cost 95 ns per call under Python's model and 10-19 ns under numpy's (when
tuner states were namedtuples of arrays). Even so, numba counts every array handed to an inlined helper in and
out around it (`ForwardCopies` removes those counts where it can) and every argument of a called function
(`BorrowingLowering` borrows them instead), so state that hot loops hand around is one StructRef (a tuner's state,
the search's walk), never a namedtuple of arrays.

Cache folder: numba checks a cached function only against its own source file, so a kernel that
inlines code from another file (every search inlines game and tuner kernels) would keep running the
old code after that file changed. The cache therefore lives in a folder named by a hash of every
sparring source that holds compiled code: `$NUMBA_CACHE_DIR` (or ~/.cache/sparring) / numba-<hash>.
Any change to such a source starts a fresh cache.

numba keys its on-disk cache on argument types, and the type of a compiled function passed as an
argument (our game kernels, handed to generic playout and search kernels) pickles the function by
a random per-process id, so by default such callers are compiled again in every process (measured
with numba 0.68.1: a warm Breakthrough start took 3.3 s instead of 0.1 s). Giving every kernel a
stable id, its qualified name, makes those cache entries load in later processes.

A namedtuple of compiled functions handed to a kernel from Python (a game's `GameKernels`, a PUCT `Rule`, a
strategy's `AllocationSteps`) was typed anew by numba on every call: functions have no fast fingerprint, so the
whole tuple went through numba's Python `typeof`. `kernel_tuple` makes numba remember each such value's type:
a Python call of `random_playouts` with no playout cost 115-120 us, and 6.4 us since (numba 0.68.1, this
2-core machine); a namedtuple of arrays (a search's tree) is fingerprinted fast by numba and needs nothing.
"""

import hashlib
import os
from pathlib import Path

import numba
from numba import njit
from numba.core import ir
from numba.core.analysis import compute_cfg_from_blocks
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_machinery import FunctionPass, register_pass
from numba.core.ir_utils import build_definitions, replace_vars_stmt
from numba.core.lowering import Lower
from numba.core.typed_passes import NativeLowering
from numba.core.typing.typeof import typeof_impl
from numba.core.untyped_passes import InlineInlinables

_ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("games", "search", "nets", "tuner")


def _cache_dir() -> str:
    digest = hashlib.sha256()
    for package in PACKAGES:
        for source in sorted((_ROOT / package).rglob("*.py")):
            text = source.read_bytes()
            if b"@kernel" in text or b"numba" in text:  # only compiled code can end up inlined in a kernel
                digest.update(str(source.relative_to(_ROOT)).encode() + text)
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(Path.home(), ".cache", "sparring")
    return os.path.join(base, f"numba-{digest.hexdigest()[:16]}")


numba.config.CACHE_DIR = _cache_dir()


@register_pass(mutates_CFG=False, analysis_only=False)
class ForwardCopies(FunctionPass):
    """Uses of a copy `t = s` read `s` instead, and the copy goes, where each has one definition and no loop holds
    both `s`'s definition and the copy (so `s` cannot change while `t` is read). Inlining a function binds each
    parameter so, and numba counts an array or StructRef bound to a new name in and out around its uses: across the
    helper's loops the two atomic operations stayed (with the rest, a fifth of an NMC step; 15% with this pass)."""

    _name = "forward_copies"

    def __init__(self):
        FunctionPass.__init__(self)

    def run_pass(self, state):
        blocks = state.func_ir.blocks
        definitions = build_definitions(blocks)
        home = {}  # the block of each variable's one definition
        for label, block in blocks.items():
            for stmt in block.body:
                if isinstance(stmt, ir.Assign):
                    home[stmt.target.name] = label
        loops = [loop.body for loop in compute_cfg_from_blocks(blocks).loops().values()]
        copies = {}
        for label, block in blocks.items():
            for stmt in block.body:
                if not (isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Var)):
                    continue
                target, source = stmt.target.name, stmt.value.name
                if len(definitions[target]) != 1 or len(definitions[source]) != 1 or target in state.locals:
                    continue  # (a type declared for the copy, `locals=`, would be lost)
                if any(label in body and home[source] in body for body in loops):
                    continue
                copies[target] = stmt.value
        for target in copies:  # through chains of copies to the first source
            seen = {target}
            while copies[target].name in copies and copies[target].name not in seen:
                seen.add(copies[target].name)
                copies[target] = copies[copies[target].name]
        kept = set()  # copies still read where replace_vars does not reach (print's starred argument)
        for block in blocks.values():
            for stmt in block.body:
                if not (isinstance(stmt, ir.Assign) and stmt.target.name in copies):
                    replace_vars_stmt(stmt, copies)
                    kept.update(v.name for v in stmt.list_vars() if v.name in copies)
        for block in blocks.values():
            body = []
            for stmt in block.body:
                if isinstance(stmt, ir.Assign) and stmt.target.name in copies:
                    if stmt.target.name not in kept:
                        continue
                    stmt.value = copies[stmt.target.name]
                body.append(stmt)
            block.body = body
        state.func_ir._definitions = build_definitions(blocks)
        return bool(copies)


class _BorrowingLower(Lower):
    """numba's lowering, except that an argument is borrowed from the caller, which holds it for the whole call,
    rather than counted in on entry and out after its last use: those two atomic operations stayed wherever LLVM's
    pruning gives up (loops, many blocks), at every call (all of an NTBEA step's, 24 sites, and a third of NMC's).
    Only an argument bound once, to a variable of its own type: rebinding one would count the borrowed value out.
    (A cold review, 440 random programs and the shapes of numba's own tests, found the same answers and counts as
    numba's lowering, but one fewer leak where an argument is raised with.) `parallel=True` lowers by numba's
    parfor lowering, which this does not replace: no kernel here uses it."""

    def pre_lower(self):
        super().pre_lower()
        self._borrowed, self._quiet = set(), False
        if self.generator_info is not None:  # a generator keeps its arguments past the call
            return
        definitions = build_definitions(self.func_ir.blocks)
        for block in self.func_ir.blocks.values():
            for stmt in block.body:
                if isinstance(stmt, ir.Assign) and isinstance(stmt.value, ir.Arg):
                    name, t = stmt.target.name, self.typeof(stmt.target.name)
                    if (
                        len(definitions[name]) == 1
                        and self.typeof(f"arg.{stmt.value.name}") == t
                        and self.context.data_model_manager[t].contains_nrt_meminfo()
                    ):
                        self._borrowed.add(name)

    def _uncounted(self, lower, *args):
        """`lower(*args)` with its reference counts left out: the one count a borrowed argument's binding makes (the
        cast to its own type is the value itself) or its release does (the rest only clears its slot)."""
        self._quiet = True
        try:
            return lower(*args)
        finally:
            self._quiet = False

    def lower_assign(self, ty, inst):
        if isinstance(inst.value, ir.Arg) and inst.target.name in self._borrowed:
            return self._uncounted(super().lower_assign, ty, inst)
        return super().lower_assign(ty, inst)

    def delvar(self, name):
        if name in self._borrowed:
            return self._uncounted(super().delvar, name)
        return super().delvar(name)

    def incref(self, typ, val):
        if not self._quiet:
            super().incref(typ, val)

    def decref(self, typ, val):
        if not self._quiet:
            super().decref(typ, val)


@register_pass(mutates_CFG=True, analysis_only=False)
class BorrowingLowering(NativeLowering):
    """numba's native lowering by `_BorrowingLower`."""

    _name = "borrowing_lowering"

    @property
    def lowering_class(self):
        return _BorrowingLower


class _Compiler(CompilerBase):
    """numba's nopython pipeline with `ForwardCopies` after inlining and arguments borrowed (`BorrowingLowering`)."""

    def define_pipelines(self):
        pipeline = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pipeline.add_pass_after(ForwardCopies, InlineInlinables)
        pipeline.passes = [(BorrowingLowering if p is NativeLowering else p, what) for p, what in pipeline.passes]
        pipeline.finalize()
        return [pipeline]


def kernel(fn=None, **options):
    """Decorator: `numba.njit(cache=True, nogil=True, error_model="numpy", **options)` with a
    process-independent identity, compiled by numba's pipeline with copies forwarded (`ForwardCopies`) and
    arguments borrowed (`BorrowingLowering`)."""

    def wrap(f):
        dispatcher = njit(cache=True, nogil=True, error_model="numpy", pipeline_class=_Compiler, **options)(f)
        set_uuid = getattr(dispatcher, "_set_uuid", None)  # numba internals; without it we only start slower
        if set_uuid is not None:
            set_uuid(f"sparring:{f.__module__}.{f.__qualname__}")
        return dispatcher

    return wrap(fn) if fn is not None else wrap


def kernel_tuple(cls):
    """Class decorator for a namedtuple of compiled functions passed to kernels: numba types each value once per
    purpose, not on every call (module docstring). The type is the one numba gives a tuple, so nothing compiles
    otherwise."""
    of_tuple = typeof_impl.dispatch(tuple)
    known: dict = {}

    @typeof_impl.register(cls)
    def _typeof(value, context):
        # by its functions: equal tuples made anew (a strategy's steps) share one entry, and the first is kept with
        # the type, so the functions' ids are never reused
        key = (*map(id, value), context.purpose)
        found = known.get(key)
        if found is None:
            found = known[key] = (value, of_tuple(value, context))
        return found[1]

    return cls
