export { ALL_TARGETS, detectTargets, planInstall, planUninstall, type InstallPlan, type Target } from './plan';
export type { Change } from './change';
