export { ALL_TARGETS, DETECTORS, detectTargets, planInstall, planUninstall, type Change, type InstallPlan, type Target } from './plan';
