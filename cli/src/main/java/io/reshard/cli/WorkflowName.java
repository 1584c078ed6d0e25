package io.reshard.cli;

import io.reshard.switcher.WorkflowSpecValidator;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/**
 * The {@code NAME} parameter of the workflow verbs: checked while the command line is parsed, by
 * the daemon's own rule ({@link WorkflowSpecValidator#checkName}), so a name that cannot be a
 * workflow's (empty, with a {@code /}, a space or a letter outside ASCII) is a usage error before
 * any request is sent.
 */
final class WorkflowName implements ITypeConverter<String> {
  @Override
  public String convert(String value) {
    try {
      WorkflowSpecValidator.checkName(value);
      return value;
    } catch (IllegalArgumentException e) {
      throw new TypeConversionException(e.getMessage());
    }
  }
}
