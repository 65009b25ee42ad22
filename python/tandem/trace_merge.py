"""python3 -m tandem.trace_merge TORCH_JSON TANDEM_JSON -o OUT: tandem.merge_traces from the
command line (see tandem._trace for how the clocks are aligned)."""
from ._trace import main

if __name__ == "__main__":
    main()
