// The environment every test process runs in (loaded by .mocharc.json in each worker).
// The tests' tmux servers start their panes with $SHELL as a login shell. A bash there reads
// the user's ~/.bashrc, which may do slow or locking work of its own (on the development
// machine, pyenv's rehash waits 60 s on a lock that a pane killed mid-start leaves behind,
// and every later pane waits with it), so the tests give their panes /bin/sh, which reads
// no ~/.bashrc. Baton itself still starts whatever shell the user has.
process.env.SHELL = '/bin/sh';

// The tests start thousands of node processes and none of them makes a TLS connection to the
// outside. A machine that sets NODE_EXTRA_CA_CERTS (this one does, to its whole CA bundle) has
// every node process parse those certificates at start-up: about 40 ms of CPU each here, a
// quarter of a bin's start. The tests' children do without it.
delete process.env.NODE_EXTRA_CA_CERTS;

// A developer running the tests inside tmux must not make the tests' children look like
// they run in a pane of some swarm (the owner fence reads $TMUX and $TMUX_PANE).
delete process.env.TMUX;
delete process.env.TMUX_PANE;
