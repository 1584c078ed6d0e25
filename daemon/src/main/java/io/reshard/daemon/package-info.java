/**
 * The long-running pipeline daemon. Entry class: {@link io.reshard.daemon.Daemon}, configured by
 * {@link io.reshard.daemon.DaemonConfig} (declared keys, every problem reported at once, frozen
 * after validation). It hosts the admin endpoint ({@link io.reshard.daemon.AdminServer}: health,
 * workflows, Prometheus metrics, token-protected actions handed to {@link
 * io.reshard.daemon.WorkflowActions}), one supervised capture per source shard ({@link
 * io.reshard.daemon.CaptureService}), and the switcher's workflow runners ({@link
 * io.reshard.daemon.DaemonService}); the workflow runners are {@link
 * io.reshard.daemon.WorkflowService} ({@link io.reshard.daemon.WorkflowAction} names its actions,
 * {@link io.reshard.daemon.WorkflowViews} renders workflows as JSON). Each service reports a {@link
 * io.reshard.daemon.ServiceState}. The CLI's {@code reshard daemon} runs it.
 */
package io.reshard.daemon;
