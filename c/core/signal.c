/* Ctrl-C as a flag: a training loop polls fused_sigint_received() between steps and saves a
 * checkpoint before it exits. The handler is C because no Lua code may run inside a signal
 * handler; it only sets a flag (async-signal-safe). A second Ctrl-C ends the process at once,
 * in case the loop never polls again. */
#include <signal.h>
#include <string.h>

#include "error.h"
#include "../fused.h"

static volatile sig_atomic_t received;
static struct sigaction previous;
static int installed;

static void on_sigint(int sig) {
  if (received) {
    signal(sig, SIG_DFL);
    raise(sig);
    return;
  }
  received = 1;
}

int fused_sigint_install(void) {
  struct sigaction action;
  memset(&action, 0, sizeof action);
  action.sa_handler = on_sigint;
  sigemptyset(&action.sa_mask);
  received = 0;
  if (sigaction(SIGINT, &action, installed ? NULL : &previous) != 0)
    return fused_error("sigint_install: sigaction failed");
  installed = 1;
  return 0;
}

int fused_sigint_received(void) { return received; }

int fused_sigint_restore(void) {
  if (installed && sigaction(SIGINT, &previous, NULL) != 0)
    return fused_error("sigint_restore: sigaction failed");
  installed = 0;
  received = 0;
  return 0;
}
