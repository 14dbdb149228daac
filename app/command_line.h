// The `stallscope` command line: parses the arguments, runs a batch mode or opens the main window,
// and returns the process exit status (0 success, 1 a bad input file, 2 bad usage).
//   stallscope [FILE]          open the main window (and FILE in it)
//   stallscope FILE --compare-with AFTER   ... and compare FILE with AFTER (File ▸ Compare With…)
//   stallscope --info FILE     print the session summary and exit (no GUI, no display needed)
//   stallscope --insights [--json] [--window SPEC] FILE, --convert TRACE -o OUT, --export-chrome
//   OUT FILE, stallscope --report OUT.pdf FILE
//                              the other batch modes (app/batch_commands.h); those that write OUT
//                              replace an existing OUT only with --force, and never an input
// FILE may be a session or a torch.profiler trace (.json, .json.gz, or a folder of rank traces).
//   --color-scheme light|dark  override the desktop's scheme; --remap OLD=NEW  a source path rule
// The README's pictures are made by stallscope-screenshots (app/screenshots/), not from here.
#pragma once

namespace stallscope::app {

// Creates the application object that the mode needs (none needs a display but the window).
int runCommandLine(int argc, char** argv);

} // namespace stallscope::app
