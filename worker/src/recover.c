/* The jump back to the server child's request loop after a fault `recover` proves clean
 * (see worker/src/recover.rs): sigsetjmp cannot be called from Rust, which knows no
 * function that returns twice. */
#include <setjmp.h>
#include <signal.h>

static sigjmp_buf env;
static volatile sig_atomic_t armed;
static volatile sig_atomic_t caught;

/* Call f(arg); 0 when it returned, else the signal of the fault it was recovered from. */
int sframe_worker_protected(void (*f)(void *), void *arg)
{
	if (sigsetjmp(env, 1) != 0) {
		armed = 0;
		return caught;
	}
	armed = 1;
	f(arg);
	armed = 0;
	return 0;
}

/* Whether a protected call is running. */
int sframe_worker_armed(void)
{
	return armed;
}

/* Leave the protected call as if it returned `sig`: only while armed. */
void sframe_worker_recover(int sig)
{
	caught = sig;
	siglongjmp(env, 1);
}
