export { ALL_TARGETS, DETECTORS, detectTargets, planInstall, planUninstall, type InstallPlan, type Target } from './plan';
export type { Change } from './change';
