"""The flags of the training scripts that run cformer as a UCI engine
(datagen.py, agent_loss.py), named as the C tools name them:

    --cformer PATH               the cformer binary (default: build/tools/cformer
                                 of this checkout where it is built, else
                                 `cformer` on PATH)
    --agent KIND                 its Agent option: policy, value or search
                                 (each script documents its default)
    --nodes N                    the search agent's visits per move (`go nodes
                                 N`); the one-ply agents get a bare `go`
    --cformer-option NAME=VALUE  any other UCI option (repeatable; also
                                 spelled --copt, as cformer-match spells it)

Deprecated spellings, still accepted in 0.1.0 with a warning on stderr:

    --agent PATH                 (PATH contains '/' or names an existing file)
                                 means --cformer PATH
    --agent-kind KIND            means --agent KIND
    --agent-option NAME=VALUE    means --cformer-option NAME=VALUE

Standard library only, so that --help works without numpy and torch.
"""

import argparse
import os
import shutil
import sys
import textwrap

AGENTS = ("policy", "value", "search")
DEFAULT_NODES = 800  # the engine's visits for a bare `go` (CF_SEARCH_DEFAULT_VISITS)
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILT = os.path.join(ROOT, "build", "tools", "cformer")


def default_cformer():
    """build/tools/cformer of this checkout where it is built, else cformer on PATH."""
    if os.access(BUILT, os.X_OK):
        return BUILT
    return shutil.which("cformer") or "cformer"


def _warn(prog, old, new):
    print(f"{prog}: warning: {old} is deprecated, use {new}", file=sys.stderr)


class _AgentAction(argparse.Action):
    """--agent KIND, or (deprecated) --agent PATH, kept apart for resolve()."""

    def __call__(self, parser, namespace, value, option_string=None):
        if value in AGENTS:
            namespace.agent = value
        elif "/" in value or os.path.isfile(value):
            namespace._agent_path = value
        else:
            parser.error(f"argument --agent: {value!r} is not an agent "
                         f"({', '.join(AGENTS)})")


class _DeprecatedAlias(argparse.Action):
    """An old spelling: stores into the new option's dest (appending where
    the new one appends) and notes the spelling for resolve()'s warning."""

    def __init__(self, option_strings, dest, new, append=False, **kwargs):
        self.new, self.append = new, append
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, value, option_string=None):
        if self.append:  # a new list: the default one belongs to the parser
            value = list(getattr(namespace, self.dest) or []) + [value]
        setattr(namespace, self.dest, value)
        namespace._deprecated = namespace._deprecated + [(option_string, self.new)]


def add_arguments(ap, default_agent, purpose):
    """Adds --cformer, --agent, --nodes and --cformer-option (and their
    deprecated spellings) to the parser ap; purpose says what the process is for."""
    g = ap.add_argument_group("cformer", textwrap.fill(
        f"The cformer UCI process {purpose}. Deprecated spellings, still accepted "
        "in 0.1.0 with a warning: --agent PATH (for --cformer PATH), --agent-kind "
        "(--agent), --agent-option (--cformer-option).", 76))
    g.add_argument("--cformer", metavar="PATH", default=None,
                   help="the cformer binary (default: build/tools/cformer of this checkout "
                        "where built, else cformer on PATH)")
    g.add_argument("--agent", action=_AgentAction, metavar="KIND", default=default_agent,
                   help=f"its Agent option: {', '.join(AGENTS)} (default {default_agent}; "
                        "deprecated: a path here means --cformer PATH)")
    g.add_argument("--nodes", type=int, default=DEFAULT_NODES, metavar="N",
                   help=f"the search agent's visits per move (default {DEFAULT_NODES}; "
                        "the policy and value agents ignore it)")
    g.add_argument("--cformer-option", "--copt", action="append", default=[],
                   metavar="NAME=VALUE",
                   help="a UCI option for cformer, e.g. Threads=1 or WeightsFile=net.pb.gz "
                        "(repeatable; NAME as `cformer uci` lists it; --copt as in "
                        "cformer-match)")
    g.add_argument("--agent-kind", dest="agent", choices=AGENTS, action=_DeprecatedAlias,
                   new="--agent", help=argparse.SUPPRESS)
    g.add_argument("--agent-option", dest="cformer_option", action=_DeprecatedAlias,
                   new="--cformer-option", append=True, help=argparse.SUPPRESS)
    ap.set_defaults(_agent_path=None, _deprecated=[])


def resolve(ap, args, prog):
    """After parse_args: warns about deprecated spellings, settles --cformer
    (an old --agent PATH included), checks --nodes and --cformer-option, and
    sets args.cformer_options, a {NAME: VALUE} dict. Errors exit 2 with usage."""
    if args._agent_path is not None:
        if args.cformer is not None and args.cformer != args._agent_path:
            ap.error(f"--agent {args._agent_path} (deprecated: the cformer binary) "
                     f"contradicts --cformer {args.cformer}")
        _warn(prog, f"--agent {args._agent_path} (a path)", f"--cformer {args._agent_path}")
        args.cformer = args._agent_path
    for old, new in args._deprecated:
        _warn(prog, old, new)
    if args.cformer is None:
        args.cformer = default_cformer()
    if args.nodes < 1:
        ap.error(f"--nodes wants a positive number, got {args.nodes}")
    options = {}
    for o in args.cformer_option:
        name, sep, value = o.partition("=")
        if not sep or not name:
            ap.error(f"--cformer-option wants NAME=VALUE, got {o!r}")
        options[name] = value
    args.cformer_options = options
    return args


def check_executable(args, prog):
    """Exits 1 when args.cformer is not an executable."""
    if not os.access(args.cformer, os.X_OK) and not shutil.which(args.cformer):
        sys.exit(f"{prog}: --cformer {args.cformer} is not an executable "
                 "(build cformer first: meson setup build && ninja -C build)")


def engine_options(args, **extra):
    """The UCI options for a cformer process: Agent, then --cformer-option,
    then extra (which wins)."""
    options = {"Agent": args.agent}
    options.update(args.cformer_options)
    options.update(extra)
    return options


def go_nodes(args):
    """The node limit for the move request: --nodes for the search agent;
    None (a bare `go`) for the one-ply agents, which a node limit would cut short."""
    return args.nodes if args.agent == "search" else None
