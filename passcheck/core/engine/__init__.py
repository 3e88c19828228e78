"""The run loop: resolve the subject, draw examples, apply and check them in a worker, record, shrink, report."""
